// The shared AWS profile files, as the AWS SDKs and CLI read them ("Shared config and
// credentials files" in the AWS SDKs and Tools Reference Guide):
//
//   file     = *(line '\n')
//   line     = blank | comment | section | property | nested
//   comment  = *blank ('#' | ';') *any
//   section  = '[' name ']'          credentials file: "[dev]"; config file: "[default]",
//                                    "[profile dev]", "[services name]"
//   property = key *blank '=' *blank value [blank+ ('#' | ';') *any]
//   nested   = blank+ key '=' value  a sub-property of the last property whose value was
//                                    empty ("s3 =" then "  endpoint_url = ..."), read as
//                                    "s3.endpoint_url"
//
// Keys compare in lower case, as botocore's ConfigParser does.

#include "storage/aws_config.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/ascii.h"

namespace tributary::storage {

namespace {

constexpr std::string_view kSparkHadoopPrefix = "spark.hadoop.";

using Section = std::map<std::string, std::string>;
using ProfileFile = std::map<std::string, Section>;

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

/// `value` without an inline comment: '#' or ';' after a blank starts one.
std::string_view StripInlineComment(std::string_view value) {
  for (size_t i = 1; i < value.size(); ++i) {
    if ((value[i] == '#' || value[i] == ';') && (value[i - 1] == ' ' || value[i - 1] == '\t')) {
      return Trim(value.substr(0, i));
    }
  }
  return value;
}

/// The sections of the INI text `text` (grammar above), by name as written between brackets.
ProfileFile ParseProfileFile(std::string_view text) {
  ProfileFile file;
  Section* section = nullptr;
  std::string nesting_parent;  // the property with an empty value the indented lines belong to
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') {
      continue;
    }
    if (line.front() == '[') {
      const size_t close = line.find(']');
      section = close == std::string_view::npos
                    ? nullptr
                    : &file[std::string(Trim(line.substr(1, close - 1)))];
      nesting_parent.clear();
      continue;
    }
    const size_t equals = line.find('=');
    if (section == nullptr || equals == std::string_view::npos) {
      continue;
    }
    const std::string key = AsciiLower(Trim(line.substr(0, equals)));
    const std::string_view value = StripInlineComment(Trim(line.substr(equals + 1)));
    const bool indented = raw.front() == ' ' || raw.front() == '\t';
    if (indented && !nesting_parent.empty()) {
      std::string nested_key = nesting_parent;
      nested_key += '.';
      nested_key += key;
      (*section)[nested_key] = std::string(value);
      continue;
    }
    nesting_parent = value.empty() ? key : std::string();
    (*section)[key] = std::string(value);
  }
  return file;
}

/// The file at `path` parsed; empty when there is no such file. IOError naming it when it
/// exists but cannot be read.
Result<ProfileFile> ReadProfileFile(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return ProfileFile{};
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return Status::IOError(fmt::format("cannot read the AWS profile file '{}'", path));
  }
  return ParseProfileFile(text.str());
}

/// A value that names a file: "~" at its start stands for the home directory.
std::string ExpandHome(const std::string& path, const GetEnvFunction& getenv) {
  if (path == "~" || path.starts_with("~/")) {
    return getenv("HOME").value_or("") + path.substr(1);
  }
  return path;
}

/// The value of an option, environment variable or profile key; empty (after trimming) is
/// the same as absent.
std::optional<std::string> NonEmpty(std::optional<std::string> value) {
  if (!value.has_value()) {
    return std::nullopt;
  }
  const std::string_view trimmed = Trim(*value);
  if (trimmed.empty()) {
    return std::nullopt;
  }
  return std::string(trimmed);
}

/// The S3A options, keyed by their short name ("fs.s3a.endpoint"); the short form wins over
/// "spark.hadoop.fs.s3a.endpoint". Keys compare ignoring ASCII case.
class S3aOptions {
 public:
  explicit S3aOptions(const std::map<std::string, std::string>& options) {
    for (const auto& [key, value] : options) {
      std::string name = AsciiLower(key);
      const bool spark_form = name.starts_with(kSparkHadoopPrefix);
      if (spark_form) {
        name.erase(0, kSparkHadoopPrefix.size());
      }
      if (!name.starts_with("fs.s3a.")) {
        continue;
      }
      auto [it, inserted] = values_.try_emplace(name, Value{value, spark_form});
      if (!inserted && it->second.spark_form && !spark_form) {
        it->second = {value, spark_form};
      }
    }
  }

  std::optional<std::string> Get(const std::string& name) const {
    const auto it = values_.find(name);
    return it == values_.end() ? std::nullopt : NonEmpty(it->second.value);
  }

 private:
  struct Value {
    std::string value;
    bool spark_form;
  };
  std::map<std::string, Value> values_;
};

Status InvalidOption(std::string_view key, std::string_view value, std::string_view expected) {
  return Status::InvalidArgument(
      fmt::format("invalid value '{}' for S3 option {}: expected {}", value, key, expected));
}

/// A non-negative integer with an optional multiplier suffix, as Hadoop's
/// Configuration.getLongBytes and getTimeDuration read them.
std::optional<int64_t> ParseScaled(std::string_view text,
                                   const std::vector<std::pair<std::string_view, int64_t>>& units,
                                   int64_t divisor) {
  int64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end == text.data() || number < 0) {
    return std::nullopt;
  }
  const std::string suffix = AsciiLower(Trim(std::string_view(end, text.data() + text.size())));
  if (suffix.empty()) {
    return number;
  }
  for (const auto& [unit, multiplier] : units) {
    if (suffix == unit) {
      if (number > INT64_MAX / multiplier) {
        return std::nullopt;
      }
      return number * multiplier / divisor;
    }
  }
  return std::nullopt;
}

Result<int64_t> ByteSizeOption(const S3aOptions& options, const std::string& key,
                               int64_t default_value) {
  const std::optional<std::string> text = options.Get(key);
  if (!text.has_value()) {
    return default_value;
  }
  static const std::vector<std::pair<std::string_view, int64_t>> kUnits = {{"k", int64_t{1} << 10},
                                                                           {"m", int64_t{1} << 20},
                                                                           {"g", int64_t{1} << 30},
                                                                           {"t", int64_t{1} << 40},
                                                                           {"p", int64_t{1} << 50}};
  const std::optional<int64_t> bytes = ParseScaled(*text, kUnits, 1);
  if (!bytes.has_value()) {
    return InvalidOption(key, *text, "a byte count such as 67108864 or 64M");
  }
  return *bytes;
}

/// Milliseconds: a plain number is milliseconds, as Hadoop's S3A timeouts read it.
Result<int64_t> DurationOption(const S3aOptions& options, const std::string& key,
                               int64_t default_value) {
  const std::optional<std::string> text = options.Get(key);
  if (!text.has_value()) {
    return default_value;
  }
  static const std::vector<std::pair<std::string_view, int64_t>> kUnits = {
      {"ns", 1},
      {"us", 1000},
      {"ms", 1000 * 1000},
      {"s", int64_t{1000} * 1000 * 1000},
      {"m", int64_t{60} * 1000 * 1000 * 1000},
      {"h", int64_t{3600} * 1000 * 1000 * 1000},
      {"d", int64_t{86400} * 1000 * 1000 * 1000}};
  const bool has_unit = !text->empty() && IsAsciiLetter(text->back());
  const std::optional<int64_t> millis =
      has_unit ? ParseScaled(*text, kUnits, int64_t{1000} * 1000) : ParseScaled(*text, {}, 1);
  if (!millis.has_value()) {
    return InvalidOption(key, *text, "a duration such as 200000 (milliseconds) or 200s");
  }
  return *millis;
}

Result<int64_t> CountOption(const S3aOptions& options, const std::string& key,
                            int64_t default_value) {
  const std::optional<std::string> text = options.Get(key);
  if (!text.has_value()) {
    return default_value;
  }
  const std::optional<int64_t> count = ParseScaled(*text, {}, 1);
  if (!count.has_value() || *count > INT32_MAX) {
    return InvalidOption(key, *text, "a non-negative integer");
  }
  return *count;
}

Result<std::optional<bool>> BoolOption(const S3aOptions& options, const std::string& key) {
  const std::optional<std::string> text = options.Get(key);
  if (!text.has_value()) {
    return std::optional<bool>();
  }
  if (EqualsIgnoreAsciiCase(*text, "true")) {
    return std::optional<bool>(true);
  }
  if (EqualsIgnoreAsciiCase(*text, "false")) {
    return std::optional<bool>(false);
  }
  return InvalidOption(key, *text, "true or false");
}

/// Credentials from one source, which has them when it has an access key. InvalidArgument
/// naming `secret_name` when the access key comes without a secret.
Result<std::optional<AwsCredentials>> CredentialsFrom(
    std::optional<std::string> access_key, std::optional<std::string> secret_key,
    const std::optional<std::string>& session_token, std::string_view access_name,
    std::string_view secret_name) {
  if (!access_key.has_value()) {
    return std::optional<AwsCredentials>();
  }
  if (!secret_key.has_value()) {
    return Status::InvalidArgument(
        fmt::format("{} is set but {} is not: S3 requests need both", access_name, secret_name));
  }
  return std::optional<AwsCredentials>(AwsCredentials{
      std::move(*access_key), std::move(*secret_key), session_token.value_or(std::string())});
}

std::optional<std::string> SectionValue(const Section* section, const std::string& key) {
  if (section == nullptr) {
    return std::nullopt;
  }
  const auto it = section->find(key);
  return it == section->end() ? std::nullopt : NonEmpty(it->second);
}

/// The profile `name` of the two shared files.
struct Profile {
  const Section* credentials = nullptr;  // [name] of the credentials file
  const Section* config = nullptr;       // [profile name] ([default] too) of the config file
  const Section* services = nullptr;     // [services x] the config profile names
};

/// The endpoint for S3 a profile gives: "s3.endpoint_url" (nested) over "endpoint_url", in the
/// profile and then in its services section.
std::optional<std::string> ProfileEndpoint(const Profile& profile) {
  if (auto value = SectionValue(profile.services, "s3.endpoint_url")) {
    return value;
  }
  if (auto value = SectionValue(profile.config, "s3.endpoint_url")) {
    return value;
  }
  return SectionValue(profile.config, "endpoint_url");
}

/// The region of an AWS S3 endpoint host ("s3.eu-west-1.amazonaws.com",
/// "bucket.s3-eu-west-1.amazonaws.com", "s3.dualstack.eu-west-1.amazonaws.com"); empty for
/// "s3.amazonaws.com" and for hosts that are not AWS's.
std::string RegionOfAwsEndpoint(std::string_view endpoint) {
  std::string_view host = endpoint;
  if (const size_t scheme = host.find("://"); scheme != std::string_view::npos) {
    host.remove_prefix(scheme + 3);
  }
  host = host.substr(0, host.find_first_of("/:"));
  const std::string lower = AsciiLower(host);
  std::string_view rest = lower;
  const size_t aws = rest.find(".amazonaws.com");
  if (aws == std::string_view::npos) {
    return {};
  }
  rest = rest.substr(0, aws);  // "s3.eu-west-1", "bucket.s3-eu-west-1", "s3"
  const size_t s3 = rest.rfind("s3");
  if (s3 == std::string_view::npos || s3 + 2 >= rest.size()) {
    return {};
  }
  std::string_view region = rest.substr(s3 + 3);
  if (region.starts_with("dualstack.")) {
    region.remove_prefix(std::string_view("dualstack.").size());
  }
  if (region.empty() || region.find('.') != std::string_view::npos) {
    return {};
  }
  return std::string(region);
}

bool IsAwsEndpoint(std::string_view endpoint) {
  return AsciiLower(endpoint).find(".amazonaws.com") != std::string::npos;
}

}  // namespace

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
  const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe): read only
  if (value == nullptr) {
    return std::nullopt;
  }
  return std::string(value);
}

Result<S3Config> ResolveS3Config(const std::map<std::string, std::string>& options,
                                 const GetEnvFunction& getenv) {
  const S3aOptions s3a(options);
  auto env = [&](const char* name) {
    return NonEmpty(getenv(name));
  };

  // The profile files, read even when options or the environment give everything, so that a
  // misspelled AWS_PROFILE is reported as the AWS CLI reports it.
  const std::optional<std::string> named_profile =
      env("AWS_PROFILE") ? env("AWS_PROFILE") : env("AWS_DEFAULT_PROFILE");
  const std::string profile_name = named_profile.value_or("default");
  const std::string credentials_path =
      ExpandHome(env("AWS_SHARED_CREDENTIALS_FILE").value_or("~/.aws/credentials"), getenv);
  const std::string config_path =
      ExpandHome(env("AWS_CONFIG_FILE").value_or("~/.aws/config"), getenv);
  TRIBUTARY_ASSIGN_OR_RAISE(const ProfileFile credentials_file, ReadProfileFile(credentials_path));
  TRIBUTARY_ASSIGN_OR_RAISE(const ProfileFile config_file, ReadProfileFile(config_path));
  Profile profile;
  if (const auto it = credentials_file.find(profile_name); it != credentials_file.end()) {
    profile.credentials = &it->second;
  }
  if (const auto it = config_file.find("profile " + profile_name); it != config_file.end()) {
    profile.config = &it->second;
  } else if (const auto plain = config_file.find(profile_name);
             profile_name == "default" && plain != config_file.end()) {
    profile.config = &plain->second;
  }
  if (auto services = SectionValue(profile.config, "services")) {
    if (const auto it = config_file.find("services " + *services); it != config_file.end()) {
      profile.services = &it->second;
    }
  }
  if (named_profile.has_value() && profile.credentials == nullptr && profile.config == nullptr) {
    return Status::InvalidArgument(
        fmt::format("AWS profile '{}' (AWS_PROFILE) is in neither '{}' nor '{}'", profile_name,
                    credentials_path, config_path));
  }

  S3Config config;

  // Credentials: all three from the first source that has an access key.
  TRIBUTARY_ASSIGN_OR_RAISE(
      std::optional<AwsCredentials> credentials,
      CredentialsFrom(s3a.Get("fs.s3a.access.key"), s3a.Get("fs.s3a.secret.key"),
                      s3a.Get("fs.s3a.session.token"), "fs.s3a.access.key", "fs.s3a.secret.key"));
  if (!credentials.has_value()) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        credentials,
        CredentialsFrom(env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"),
                        env("AWS_SESSION_TOKEN"), "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"));
  }
  for (const Section* section : {profile.credentials, profile.config}) {
    if (credentials.has_value()) {
      break;
    }
    const std::string where =
        fmt::format("aws_access_key_id of AWS profile '{}' in '{}'", profile_name,
                    section == profile.credentials ? credentials_path : config_path);
    TRIBUTARY_ASSIGN_OR_RAISE(credentials,
                              CredentialsFrom(SectionValue(section, "aws_access_key_id"),
                                              SectionValue(section, "aws_secret_access_key"),
                                              SectionValue(section, "aws_session_token"), where,
                                              "aws_secret_access_key"));
  }
  if (credentials.has_value()) {
    config.credentials = std::move(*credentials);
  }

  // Endpoint: an option, then AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then the profile; the
  // SDKs skip all but the option when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true.
  std::optional<std::string> endpoint = s3a.Get("fs.s3a.endpoint");
  const bool ignore_configured =
      EqualsIgnoreAsciiCase(env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS").value_or(""), "true");
  if (!endpoint.has_value() && !ignore_configured) {
    endpoint = env("AWS_ENDPOINT_URL_S3");
    if (!endpoint.has_value()) {
      endpoint = env("AWS_ENDPOINT_URL");
    }
    if (!endpoint.has_value()) {
      endpoint = ProfileEndpoint(profile);
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::optional<bool> ssl,
                            BoolOption(s3a, "fs.s3a.connection.ssl.enabled"));
  if (endpoint.has_value()) {
    std::string url = *endpoint;
    if (url.find("://") == std::string::npos) {
      url = (ssl.value_or(true) ? "https://" : "http://") + url;  // Hadoop's host-only form
    }
    while (url.ends_with('/')) {
      url.pop_back();
    }
    config.endpoint = std::move(url);
  }

  // Region: the option, AWS_REGION, AWS_DEFAULT_REGION, the profile, an AWS endpoint's own.
  std::optional<std::string> region = s3a.Get("fs.s3a.endpoint.region");
  for (const char* name : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (!region.has_value()) {
      region = env(name);
    }
  }
  if (!region.has_value()) {
    region = SectionValue(profile.config, "region");
  }
  if (!region.has_value() && !config.endpoint.empty()) {
    region = NonEmpty(RegionOfAwsEndpoint(config.endpoint));
  }
  config.region = region.value_or("us-east-1");

  TRIBUTARY_ASSIGN_OR_RAISE(const std::optional<bool> path_style,
                            BoolOption(s3a, "fs.s3a.path.style.access"));
  config.path_style =
      path_style.value_or(!config.endpoint.empty() && !IsAwsEndpoint(config.endpoint));

  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t attempts,
                            CountOption(s3a, "fs.s3a.attempts.maximum", config.max_attempts));
  config.max_attempts = static_cast<int>(std::max<int64_t>(attempts, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(
      config.connect_timeout_ms,
      DurationOption(s3a, "fs.s3a.connection.establish.timeout", config.connect_timeout_ms));
  TRIBUTARY_ASSIGN_OR_RAISE(
      config.request_timeout_ms,
      DurationOption(s3a, "fs.s3a.connection.timeout", config.request_timeout_ms));
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t request_timeout,
                            DurationOption(s3a, "fs.s3a.connection.request.timeout", 0));
  if (request_timeout > 0) {
    config.request_timeout_ms = request_timeout;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      config.multipart_threshold_bytes,
      ByteSizeOption(s3a, "fs.s3a.multipart.threshold", config.multipart_threshold_bytes));
  TRIBUTARY_ASSIGN_OR_RAISE(config.part_size_bytes,
                            ByteSizeOption(s3a, "fs.s3a.multipart.size", config.part_size_bytes));
  if (config.part_size_bytes < kS3MinPartSizeBytes) {
    return Status::InvalidArgument(
        fmt::format("S3 option fs.s3a.multipart.size is {} bytes: S3 parts are at least 5M "
                    "(5242880 bytes)",
                    config.part_size_bytes));
  }
  if (config.multipart_threshold_bytes == 0) {
    return InvalidOption("fs.s3a.multipart.threshold", "0", "a positive byte count");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t threads,
                            CountOption(s3a, "fs.s3a.threads.max", config.upload_parallelism));
  if (threads < 1) {
    return InvalidOption("fs.s3a.threads.max", std::to_string(threads), "at least 1");
  }
  config.upload_parallelism = static_cast<int>(threads);
  return config;
}

}  // namespace tributary::storage
