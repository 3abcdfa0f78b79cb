#!/usr/bin/env bash
# A minimal reproduction of the release-only miscompile that inverted every JSON boolean in our
# log (see docs/COMPILER-HAZARDS.md). Two modules, three small files, plain swiftc:
#
#   docs/compiler-hazards/outlined-literals-repro.sh [work-dir]
#
# Module A has an @inlinable function with two constant array literals. Built -O with whole-module
# optimization split over two object files (-num-threads 2, which `swift build -c release` does),
# each literal becomes a hidden *weak* global named after the function and the literal's index
# among the ones the optimizer kept: ...Tv_ and ...Tv0_. Module B inlines the function, keeps the
# literals in a different order, and emits its own weak globals under the same two names with the
# contents swapped. The linker keeps one definition of each name, so one of the modules reads
# "false" where it wrote "true". Which one depends on the link order; both orders are shown.
#
# Prints REPRODUCED (exit 0) when a wrong answer appears, NOT REPRODUCED (exit 1) otherwise.
# Leaves the object files in the work directory (.ci/check-outlined-literals --self-test uses them).
set -euo pipefail
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"

cat > A.swift <<'SWIFT'
public struct Writer {
  public var bytes: [UInt8] = []
  public init() {}
  @inlinable
  public mutating func bool(_ value: Bool) {
    if value {
      bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])  // "true"
    } else {
      bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])  // "false"
    }
  }
  @inline(never)
  public static func encode(_ value: Bool) -> String {
    var writer = Writer()
    writer.bool(value)
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
SWIFT
# A second file, so that A is compiled into more than one object file.
echo 'public func unrelated() -> Int { 1 }' > A2.swift

cat > main.swift <<'SWIFT'
import A
@inline(never) func threeFlags(_ flag: Bool) -> String {
  var writer = Writer()
  writer.bool(flag)
  writer.bool(!flag)
  writer.bool(flag)
  return String(decoding: writer.bytes, as: UTF8.self)
}
@inline(never) func falseOnly() -> String {
  var writer = Writer()
  writer.bool(false)
  return String(decoding: writer.bytes, as: UTF8.self)
}
let flag = CommandLine.arguments.count > 5  // false, unknown to the optimizer
print("B: threeFlags(false) = \(threeFlags(flag)) (expected falsetruefalse)")
print("A: encode(true) = \(Writer.encode(true)), encode(false) = \(Writer.encode(false))")
SWIFT
echo 'public func alsoUnrelated() -> Int { 2 }' > B2.swift

swiftc -O -wmo -num-threads 2 -parse-as-library -emit-module -module-name A -c A.swift A2.swift
swiftc -O -wmo -num-threads 2 -I . -module-name B -c main.swift B2.swift
swiftc A.o A2.o main.o B2.o -o a-first
swiftc main.o B2.o A.o A2.o -o b-first

echo "-- the weak globals each module defined:"
for object in A.o main.o; do
  objdump -t "$object" | grep -F 'WriterV4boolyySbFTv' | sed "s|^|$object: |"
done
echo "-- linked with A first:"
./a-first | tee a-first.txt
echo "-- linked with B first:"
./b-first | tee b-first.txt

if grep -q 'threeFlags(false) = falsetruefalse' a-first.txt \
  && grep -q 'threeFlags(false) = falsetruefalse' b-first.txt \
  && grep -q 'encode(true) = true, encode(false) = false' a-first.txt \
  && grep -q 'encode(true) = true, encode(false) = false' b-first.txt; then
  echo "NOT REPRODUCED: every answer is right with this compiler"
  exit 1
fi
echo "REPRODUCED: a module read the other's literal under the same symbol name"
