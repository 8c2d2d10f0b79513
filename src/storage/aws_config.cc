#include "storage/aws_config.h"

#include <cstdlib>

namespace tributary::storage {

std::string AwsCredentials::Redacted() const {
  if (Anonymous()) {
    return "anonymous";
  }
  std::string out = access_key_id.substr(0, 4) + "****";
  out += secret_access_key.empty() ? " (no secret)" : " (secret set)";
  if (!session_token.empty()) {
    out += " (session token set)";
  }
  return out;
}

std::optional<std::string> ProcessGetEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) {
    return std::nullopt;
  }
  return std::string(value);
}

Result<S3Config> ResolveS3Config(const std::map<std::string, std::string>& /*options*/,
                                 const GetEnvFunction& /*getenv*/) {
  S3Config config;
  config.region = "us-east-1";
  return config;
}

}  // namespace tributary::storage
