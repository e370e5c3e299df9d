// Issue 26, class 5: a project's own header whose name starts like cuDNN's (llm.c's cudnn_att.h).
#pragma once
void attention_forward_cudnn(float* out, const float* inp, int B, int T);
