// port emulate: <cuComplex.h>, the toolkit's single- and double-precision complex numbers, on the
// CPU (the runtime is force-included). cuFloatComplex is float2 and cuDoubleComplex double2, as
// in the toolkit, so programs that build one with make_float2 or read .x/.y keep working. The
// arithmetic follows the toolkit's header: division scales by |re| + |im| of the divisor (no
// overflow for large operands), the magnitude is computed without overflow too (std::hypot;
// its last bit may differ from a GPU's). Every width runs the same code, so results never differ
// between warp widths because of it.
#pragma once
#include "emu_runtime.h"

#include <cmath>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

EMU_INL float cuCrealf(cuFloatComplex x) { return x.x; }
EMU_INL float cuCimagf(cuFloatComplex x) { return x.y; }
EMU_INL cuFloatComplex make_cuFloatComplex(float r, float i) { return float2{r, i}; }
EMU_INL cuFloatComplex cuConjf(cuFloatComplex x) { return float2{x.x, -x.y}; }
EMU_INL cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) { return float2{x.x + y.x, x.y + y.y}; }
EMU_INL cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) { return float2{x.x - y.x, x.y - y.y}; }
EMU_INL cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y) {
  return float2{x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x};
}
EMU_INL cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
  float s = std::fabs(y.x) + std::fabs(y.y), oos = 1.0f / s;
  float ars = x.x * oos, ais = x.y * oos, brs = y.x * oos, bis = y.y * oos;
  float oos2 = 1.0f / (brs * brs + bis * bis);
  return float2{(ars * brs + ais * bis) * oos2, (ais * brs - ars * bis) * oos2};
}
EMU_INL float cuCabsf(cuFloatComplex x) { return std::hypot(x.x, x.y); }

EMU_INL double cuCreal(cuDoubleComplex x) { return x.x; }
EMU_INL double cuCimag(cuDoubleComplex x) { return x.y; }
EMU_INL cuDoubleComplex make_cuDoubleComplex(double r, double i) { return double2{r, i}; }
EMU_INL cuDoubleComplex cuConj(cuDoubleComplex x) { return double2{x.x, -x.y}; }
EMU_INL cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) { return double2{x.x + y.x, x.y + y.y}; }
EMU_INL cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) { return double2{x.x - y.x, x.y - y.y}; }
EMU_INL cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y) {
  return double2{x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x};
}
EMU_INL cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
  double s = std::fabs(y.x) + std::fabs(y.y), oos = 1.0 / s;
  double ars = x.x * oos, ais = x.y * oos, brs = y.x * oos, bis = y.y * oos;
  double oos2 = 1.0 / (brs * brs + bis * bis);
  return double2{(ars * brs + ais * bis) * oos2, (ais * brs - ars * bis) * oos2};
}
EMU_INL double cuCabs(cuDoubleComplex x) { return std::hypot(x.x, x.y); }

EMU_INL cuComplex make_cuComplex(float x, float y) { return make_cuFloatComplex(x, y); }
EMU_INL cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return double2{(double)c.x, (double)c.y}; }
EMU_INL cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return float2{(float)c.x, (float)c.y}; }
// the toolkit's fused multiply-add of complex numbers: x * y + d
EMU_INL cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d) {
  float re = (x.x * y.x) + d.x, im = (x.x * y.y) + d.y;
  return float2{-(x.y * y.y) + re, (x.y * y.x) + im};
}
EMU_INL cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
  double re = (x.x * y.x) + d.x, im = (x.x * y.y) + d.y;
  return double2{-(x.y * y.y) + re, (x.y * y.x) + im};
}
