#!/usr/bin/env bash
# Structural rules of STYLE.md and DESIGN.md that the compiler does not enforce:
#  1. a layer includes only layers below it (columnar and storage not each other);
#  2. public headers include only public headers and the standard library, and each compiles
#     on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
order=(common columnar storage expr formats delta exec plan state streaming sql api)
rank() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
status=0
for layer in "${order[@]}"; do
  [ -d "src/$layer" ] || continue
  r=$(rank "$layer")
  while IFS= read -r hit; do
    target=${hit##*#include \"}; target=${target%%/*}
    t=$(rank "$target")
    [ "$t" -lt 0 ] && continue
    if [ "$t" -gt "$r" ] || { [ "$t" != "$r" ] && { [ "$layer$target" = columnarstorage ] || [ "$layer$target" = storagecolumnar ]; }; }; then
      echo "layering: ${hit%%:*}: $layer must not include $target"
      status=1
    fi
  done < <(grep -rnoE '#include "[a-z_]+/' "src/$layer" || true)
done
for header in include/tributary/*.h; do
  if grep -nE '#include *"' "$header" | grep -vq '"tributary/'; then
    echo "public header $header includes a non-public header"; status=1
  fi
  if grep -nE '#include *<' "$header" | grep -E '<[a-z_]+/' >/dev/null; then
    echo "public header $header includes a third-party header"; status=1
  fi
  if grep -nE '^ *namespace ' "$header" | grep -vE 'namespace (tributary|internal) \{'; then
    echo "public header $header names an internal namespace (hide the type behind an Impl)"
    status=1
  fi
  if ! echo "#include \"tributary/$(basename "$header")\"" |
      ${CXX:-g++} -std=c++20 -Wall -Wextra -fsyntax-only -Iinclude -x c++ -; then
    echo "public header $header does not compile on its own"; status=1
  fi
done
[ $status -eq 0 ] && echo "layers and public headers: ok"
exit $status
