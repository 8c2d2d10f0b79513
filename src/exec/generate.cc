#include "exec/generate.h"

#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "exec/row_key.h"

namespace tributary::exec {

GenerateOperator::GenerateOperator(std::shared_ptr<const GenerateNode> node, OperatorPtr input,
                                   const ExecContext& context)
    : node_(std::move(node)), input_(std::move(input)), context_(context) {}

Result<RecordBatchPtr> GenerateOperator::Next() {
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      return batch;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr collection,
                              expr::Evaluate(*node_->Spec().collection, *batch, context_.eval));
    const int64_t* offsets = collection->Offsets();
    std::vector<int64_t> parents;
    std::vector<int64_t> elements;
    std::vector<int32_t> positions;
    for (int64_t row = 0; row < batch->NumRows(); ++row) {
      const int64_t begin = collection->IsNull(row) ? 0 : offsets[row];
      const int64_t end = collection->IsNull(row) ? 0 : offsets[row + 1];
      if (begin == end) {
        if (node_->Spec().outer) {
          parents.push_back(row);
          elements.push_back(-1);
          positions.push_back(-1);
        }
        continue;
      }
      for (int64_t e = begin; e < end; ++e) {
        parents.push_back(row);
        elements.push_back(e);
        positions.push_back(static_cast<int32_t>(e - begin));
      }
    }
    if (parents.empty()) {
      continue;
    }
    columnar::MemoryPool* pool = context_.eval.pool;
    std::vector<columnar::ColumnPtr> columns;
    for (const columnar::ColumnPtr& column : batch->Columns()) {
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr taken, columnar::Take(*column, parents, pool));
      columns.push_back(std::move(taken));
    }
    if (node_->Spec().with_position) {
      columnar::ColumnBuilder builder(columnar::DataType::Int32(), pool);
      for (int32_t position : positions) {
        if (position < 0) {
          builder.AppendNull();
        } else {
          builder.AppendInt(position);
        }
      }
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr pos, builder.Finish());
      columns.push_back(std::move(pos));
    }
    for (const columnar::ColumnPtr& child : collection->Children()) {
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr values, TakeOrNull(*child, elements, pool));
      columns.push_back(std::move(values));
    }
    return columnar::RecordBatch::Make(node_->Schema(), static_cast<int64_t>(parents.size()),
                                       std::move(columns));
  }
}

}  // namespace tributary::exec
