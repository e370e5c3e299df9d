// port emulate: CUDA's math_constants.h values (single and double precision).
#pragma once
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_2PI_F 6.283185307f
#define CUDART_PIO2_F 1.570796327f
#define CUDART_SQRT_2PI_F 2.506628275f
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)
#define CUDART_MAX_NORMAL_F 3.40282347e+38f
#define CUDART_MIN_DENORM_F 1.40129846e-45f
#define CUDART_ONE_F 1.0f
#define CUDART_ZERO_F 0.0f
