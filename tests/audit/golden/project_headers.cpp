// Issue 26, class 5: the project's own "cudnn_att.h" (next to this file) is no cuDNN header;
// cuDNN's own header names still are, in either spelling.
#include "cudnn_att.h"
#include "cudnn_attention_helpers.h"
#include <cudnn_frontend.h>  // expect: cuda-only-library
void f(float* o, const float* i) { attention_forward_cudnn(o, i, 1, 2); }
