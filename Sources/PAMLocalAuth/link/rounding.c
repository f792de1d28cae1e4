// rounding.c: the three libm functions the module, its library and the helper call, so that none loads libm.so.6.
//
// Swift's rounding and square root need only ceil (the standard library's hash tables size themselves with it, and
// wholeSeconds rounds up), floor (the shadow day) and sqrt (the matcher's cosine): baseline x86-64 has no rounding
// instruction, so LLVM lowers them to calls. Loading libm for them mapped 384 KiB more of every pamtester (make
// bench, figure 3; docs/EMBEDDED.md). Linked by the Makefile into pam_localauth.so, pam_localauth/extra.so and
// localauth-helper, compiled without LTO and hidden, so that their own calls bind here and nothing is exported;
// never part of a SwiftPM target, so no application's libm is ever replaced. The results are exact, as libm's are:
// every double of magnitude 2^52 or more is already an integer, and below that the truncation through int64_t is
// exact. Declarations come from <math.h>, so the compiler checks these against libm's own.
#include <math.h>
#include <stdint.h>

#define HIDDEN __attribute__((visibility("hidden")))

/// x rounded toward zero when it may have a fraction; x itself when it is an integer, infinite or NaN.
static double truncated(double x, int *whole) {
  *whole = !(__builtin_fabs(x) < 4503599627370496.0) || x == 0;  // 2^52; NaN compares false
  return *whole ? x : (double)(int64_t)x;
}

HIDDEN double floor(double x) {
  int whole;
  double t = truncated(x, &whole);
  if (whole) return x;
  if (t > x) t -= 1.0;
  return t;  // a zero here comes from 0 < x < 1: +0, as libm gives
}

HIDDEN double ceil(double x) {
  int whole;
  double t = truncated(x, &whole);
  if (whole) return x;
  if (t < x) t += 1.0;
  return t == 0 ? __builtin_copysign(0.0, x) : t;  // -1 < x < 0 gives -0, as libm does
}

/// The processor's square root (sqrtsd: correctly rounded, as libm's); compiled with -fno-math-errno, so that it
/// never calls back into sqrt to set errno.
HIDDEN double sqrt(double x) { return __builtin_sqrt(x); }
