// Which warehouse tables a statement reads (ReferencedTables in binder.h): the names in its
// FROM items and subqueries, minus the WITH names in scope.

#include <algorithm>

#include "common/ascii.h"
#include "sql/binder.h"

namespace tributary::sql {

namespace {

// Collects the table names a query reads, minus the WITH names in scope.
class TableReferences {
 public:
  explicit TableReferences(std::vector<std::string>* names) : names_(names) {}

  void Query(const sql::Query& query) {
    scopes_.emplace_back();
    for (const CommonTableExpression& cte : query.with) {
      Query(*cte.query);
      scopes_.back().push_back(AsciiLower(cte.name));
    }
    if (query.from != nullptr) {
      Relation(*query.from);
    }
    if (query.left != nullptr) {
      Query(*query.left);
    }
    if (query.right != nullptr) {
      Query(*query.right);
    }
    scopes_.pop_back();
  }

  void Relation(const sql::Relation& relation) {
    if (relation.kind == RelationKind::kTable && !relation.table.IsPath() &&
        relation.table.parts.size() == 1) {
      const std::string name = AsciiLower(relation.table.parts[0]);
      const bool cte = std::any_of(scopes_.begin(), scopes_.end(), [&](const auto& scope) {
        return std::find(scope.begin(), scope.end(), name) != scope.end();
      });
      if (!cte && std::find(names_->begin(), names_->end(), name) == names_->end()) {
        names_->push_back(name);
      }
    }
    if (relation.subquery != nullptr) {
      Query(*relation.subquery);
    }
    if (relation.left != nullptr) {
      Relation(*relation.left);
    }
    if (relation.right != nullptr) {
      Relation(*relation.right);
    }
  }

 private:
  std::vector<std::string>* names_;
  std::vector<std::vector<std::string>> scopes_;
};

}  // namespace

std::vector<std::string> ReferencedTables(const Statement& statement) {
  std::vector<std::string> names;
  TableReferences references(&names);
  if (const auto* query = std::get_if<QueryPtr>(&statement.body)) {
    references.Query(**query);
  } else if (const auto* create = std::get_if<CreateTable>(&statement.body)) {
    if (create->query != nullptr) {
      references.Query(*create->query);
    }
  } else if (const auto* insert = std::get_if<Insert>(&statement.body)) {
    references.Query(*insert->query);
  } else if (const auto* merge = std::get_if<Merge>(&statement.body)) {
    references.Relation(*merge->source);
  } else if (const auto* flow = std::get_if<AutoCdc>(&statement.body)) {
    references.Relation(*flow->source);
  }
  // Subqueries inside expressions (IN, EXISTS, scalar) are kept beside the tree.
  if (statement.sources != nullptr) {
    for (const auto& [node, query] : statement.sources->subqueries) {
      references.Query(*query);
    }
  }
  return names;
}

}  // namespace tributary::sql
