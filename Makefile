# Thin entry points; the work is in scripts/ and CMake.
.PHONY: setup build demo test check bench format tidy clean

setup:
	./scripts/setup.sh

build: setup
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build build/release

demo: setup
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build build/release --target tributary
	./build/release/tools/tributary/tributary demo

test: setup
	./scripts/test.sh

# The development lane: the release build with -Werror, as `make test` builds it, and the unit
# tests that take no seconds (no sanitizers, fuzzing, interop or slow tests: `make test` runs
# those).
check: setup
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRIBUTARY_WERROR=ON
	cmake --build build/release
	ctest --test-dir build/release --output-on-failure -j $$(nproc) -L unit -LE slow

bench: setup
	./scripts/bench.sh

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

tidy:
	./scripts/tidy.sh

clean:
	rm -rf build/release build/asan
