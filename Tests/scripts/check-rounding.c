// check-rounding.c: the module's own ceil, floor and sqrt (Sources/PAMLocalAuth/link/rounding.c, built here with
// -Dceil=own_ceil -Dfloor=own_floor -Dsqrt=own_sqrt) give libm's results bit for bit: signed zeros, halves, the
// edges of 2^52, infinities, NaN, subnormals, and two million doubles (random bit patterns, and values with three
// decimals between -1000 and 1000). Run by check-load.sh; prints the first mismatches and exits 1 on any.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

double own_ceil(double), own_floor(double), own_sqrt(double);

static long mismatches;

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)); }

static void check(double x) {
  if (same(ceil(x), own_ceil(x)) && same(floor(x), own_floor(x)) && same(sqrt(x), own_sqrt(x))) return;
  if (mismatches++ < 5) printf("check-rounding: %a: ceil %a/%a floor %a/%a sqrt %a/%a (libm/own)\n", x, ceil(x), own_ceil(x),
                               floor(x), own_floor(x), sqrt(x), own_sqrt(x));
}

int main(void) {
  const double edges[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 0.9999999999999999, -0.9999999999999999,
                          4503599627370495.5, -4503599627370495.5, 4503599627370496.0, -4503599627370496.0,
                          9007199254740993.0, 1e300, -1e300, INFINITY, -INFINITY, NAN, -NAN, 0x1p-1074, -0x1p-1074,
                          0x1p-1022, 2.0, 86400.0 * 365.25, 299.99999999999994};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) check(edges[i]);
  uint64_t state = 0x9E3779B97F4A7C15u;
  for (int i = 0; i < 1000000; i++) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    double x;
    memcpy(&x, &state, sizeof x);
    check(x);
    check((double)(int64_t)(state % 2000001) / 1000.0 - 1000.0);
  }
  if (mismatches) {
    printf("check-rounding: %ld results differ from libm's\n", mismatches);
    return 1;
  }
  printf("check-rounding: the module's ceil, floor and sqrt match libm's on 2,000,027 doubles\n");
  return 0;
}
