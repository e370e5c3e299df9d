"""rocm-port: a CUDA-to-ROCm porting and parity-certification suite."""

__version__ = "0.1.0"
