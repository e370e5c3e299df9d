// The include edge of ggml's ggml-cuda/quantize.cuh that quantize.cu needs (its declarations are not
// part of this corpus): quantize.cu's translation unit reaches common.cuh and vendors/hip.h through it.
#pragma once
#include "common.cuh"
