#!/usr/bin/env bash
# What moving `reshape`'s element-count check to `cargo check` would cost
# (issue 40). Stable Rust cannot multiply const generics in a bound, so the
# trait solver can only compare element counts if every `Const<N>` maps to a
# typenum number, one impl per N: `impl Count for Const<768> { type U =
# UInt<<Const<384> as Count>::U, B0>; }`. This script writes such a table
# for N = 0..=LIMIT in a throwaway library (with `Numel` products over
# tuples and a `ReshapesTo` bound comparing them) and times `cargo check`
# of that library, for each LIMIT given (default 1024 4096 8192). It then
# checks a user crate with 20 reshapes of model-sized shapes against the
# last table (its sizes need LIMIT >= 4096) and prints the error for a
# wrong count.
#
# Usage: scripts/typenum_table_cost.sh [LIMIT...]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/target/typenum_table_cost"
limits=("$@")
[ ${#limits[@]} -gt 0 ] || limits=(1024 4096 8192)
mkdir -p "$work/lib/src" "$work/user/src"
printf '[workspace]\nmembers = ["lib", "user"]\nresolver = "2"\n' > "$work/Cargo.toml"
printf '[package]\nname = "tnlib"\nversion = "0.0.0"\nedition = "2024"\n[dependencies]\ntypenum = "1.17"\n' > "$work/lib/Cargo.toml"
printf '[package]\nname = "tnuser"\nversion = "0.0.0"\nedition = "2024"\n[dependencies]\ntnlib = { path = "../lib" }\n' > "$work/user/Cargo.toml"

python3 - "$work/user/src/main.rs" <<'PY'
import sys
shapes = [((8, 256, 768), (2048, 768)), ((8, 256, 384), (8, 256, 6, 64)),
          ((32, 512, 1024), (32, 512, 16, 64)), ((4, 1024, 4096), (4096, 4096)),
          ((16, 128, 4096), (2048, 4096))]
c = lambda dims: "(" + ", ".join(f"Const<{d}>" for d in dims) + ",)"
lines = ["use tnlib::{Const, reshape};", "fn main() {",
         "    #[cfg(wrong_count)]",
         "    reshape::<(Const<8>, Const<256>, Const<768>), (Const<2048>, Const<767>)>();"]
for i in range(20):
    a, b = shapes[i % len(shapes)]
    lines.append(f"    reshape::<{c(a)}, {c(b)}>();")
open(sys.argv[1], "w").write("\n".join(lines + ["}"]) + "\n")
PY

cd "$work"
for limit in "${limits[@]}"; do
    python3 - "$limit" lib/src/lib.rs <<'PY'
import sys
limit, path = int(sys.argv[1]), sys.argv[2]
out = ["""use core::ops::Mul;
use typenum::{B0, B1, IsEqual, Prod, True, UInt, UTerm, Unsigned};
pub struct Const<const N: usize>;
pub trait Count { type U: Unsigned; }
impl Count for Const<0> { type U = UTerm; }
"""]
for n in range(1, limit + 1):
    out.append(f"impl Count for Const<{n}> {{ type U = UInt<<Const<{n >> 1}> as Count>::U, {'B1' if n & 1 else 'B0'}>; }}\n")
out.append("""pub trait Numel { type U: Unsigned; }
impl<A: Count, B: Count> Numel for (A, B,) where A::U: Mul<B::U>, Prod<A::U, B::U>: Unsigned { type U = Prod<A::U, B::U>; }
impl<A: Count, B: Count, C: Count> Numel for (A, B, C,) where A::U: Mul<B::U>, Prod<A::U, B::U>: Mul<C::U>, Prod<Prod<A::U, B::U>, C::U>: Unsigned { type U = Prod<Prod<A::U, B::U>, C::U>; }
impl<A: Count, B: Count, C: Count, E: Count> Numel for (A, B, C, E,) where A::U: Mul<B::U>, Prod<A::U, B::U>: Mul<C::U>, Prod<Prod<A::U, B::U>, C::U>: Mul<E::U>, Prod<Prod<Prod<A::U, B::U>, C::U>, E::U>: Unsigned { type U = Prod<Prod<Prod<A::U, B::U>, C::U>, E::U>; }
#[diagnostic::on_unimplemented(message = "cannot reshape `{Self}` into `{S2}`: the element counts differ")]
pub trait ReshapesTo<S2> {}
impl<S: Numel, S2: Numel> ReshapesTo<S2> for S where S::U: IsEqual<S2::U, Output = True> {}
pub fn reshape<S: ReshapesTo<S2>, S2>() {}
""")
open(path, "w").write("".join(out))
PY
    t0=$(date +%s.%N)
    cargo check --quiet -p tnlib
    t1=$(date +%s.%N)
    printf 'table of %6d impls: cargo check of the library %.1f s\n' "$limit" "$(echo "$t1 - $t0" | bc)"
done
cargo check --quiet -p tnuser
touch user/src/main.rs
t0=$(date +%s.%N)
cargo check --quiet -p tnuser
t1=$(date +%s.%N)
printf 'user crate, 20 reshapes checked by the table: %.2f s\n' "$(echo "$t1 - $t0" | bc)"
echo "the error for a wrong count:"
RUSTFLAGS="--cfg wrong_count" cargo check --quiet -p tnuser 2>&1 | grep -v "unexpected .cfg\|check-cfg\|cfg(wrong_count)\|^ *= help\|^ *= note: see\|warn(unexpected" | head -16 || true
