//! The scalar type the block kernel solves in (`[solver] precision`): f64, the default and the reference, or
//! f32, which doubles the lanes of a vector register. Positions and multipliers stay f64 in the state; an f32
//! sweep rounds the displacements from the rest shape into its padded copy, moves the positions by its
//! corrections and adds its Δλ to the f64 multipliers ([`Real::COARSE`]).

use std::fmt::Debug;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// f64 or f32, with the few operations the block kernel needs.
pub trait Real:
    Copy
    + Debug
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    /// True for f32, too coarse to hold positions to the precision XPBD's corrections need: the padded copy
    /// then holds displacements from the rest shape rather than positions (the kernel forms F = I + D_u D_m⁻¹),
    /// and since a displacement can still swallow a correction (one below half its last place), a Gauss-Seidel
    /// sweep sums each vertex's corrections apart and adds the sums to the f64 positions
    /// (`block_kernel::Corrected`) instead of copying the displacements back. f64 keeps the positions and the
    /// arithmetic of the CUDA kernels.
    const COARSE: bool;
    /// `v` rounded to this type.
    fn of(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// self · a + b, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn sqrt(self) -> Self;
    fn is_finite(self) -> bool;
    /// This type's displacements and correction sums in `padded`.
    fn padded(padded: &mut Padded) -> (&mut Vec<[Self; 4]>, &mut Vec<[Self; 4]>);
}

macro_rules! real {
    ($t:ident, $field:ident, $sums:ident, $coarse:literal) => {
        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const COARSE: bool = $coarse;
            #[inline(always)]
            fn of(v: f64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn mul_add(self, a: $t, b: $t) -> $t {
                $t::mul_add(self, a, b)
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                $t::sqrt(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            fn padded(padded: &mut Padded) -> (&mut Vec<[$t; 4]>, &mut Vec<[$t; 4]>) {
                (&mut padded.$field, &mut padded.$sums)
            }
        }
    };
}
real!(f64, f64, f64_sums, false);
real!(f32, f32, f32_sums, true);

/// `[x, y, z, w]` of every vertex in the precision of a sweep's blocks: the position, or for a [`Real::COARSE`]
/// precision the displacement from the rest position (copied in before each use), `w` the inverse mass the
/// sweep solves with (set once); and for a coarse precision `[Σ Δx, 0]`, the sum of a vertex's corrections in the
/// current sweep. The arrays of the other precision stay empty.
#[derive(Clone, Debug, Default)]
pub struct Padded {
    pub f64: Vec<[f64; 4]>,
    pub f32: Vec<[f32; 4]>,
    pub f64_sums: Vec<[f64; 4]>,
    pub f32_sums: Vec<[f32; 4]>,
}
