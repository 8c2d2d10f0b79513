// Whether the test runs under AddressSanitizer (the build/asan build: clang -O1
// -fsanitize=address,undefined), for the few tests whose bounds are the release build's: stack
// frames several times larger with its redzones, freed memory kept resident by its quarantine.

#pragma once

namespace tributary::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace tributary::testing
