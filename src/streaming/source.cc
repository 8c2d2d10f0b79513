#include "streaming/source.h"

#include "plan/plan_builder.h"

namespace tributary::streaming {

plan::LogicalPlanPtr StreamScan(std::shared_ptr<const SourceDefinition> definition,
                                const std::string& qualifier) {
  plan::ScanSource source;
  source.kind = plan::ScanSource::Kind::kStream;
  source.schema = definition->Schema();
  source.hidden_columns = definition->HiddenColumns();
  source.description = definition->Description();
  source.stream = std::move(definition);
  return plan::Scan(std::move(source), qualifier, /*streaming=*/true);
}

}  // namespace tributary::streaming
