"""Textures and CUDA arrays in the emulator (runtime/emu_texture.h): what the texture unit
returns for each addressing and filtering mode, the same at both widths."""

from __future__ import annotations

from pathlib import Path

from porting.emulate import refuse

TEXTURE = Path(__file__).parent / "programs" / "texture"


def test_texture_reads_follow_the_hardware_rules_at_both_widths(emulate_program):
    """Expected values worked out by hand from sampling.cu's inputs (image 10 * row + column,
    4 x 3): point reads take floor(x), floor(y); linear reads weigh the four texels around
    (x - 0.5, y - 0.5), so x = 1.0 gives 0.5 and (2.25, 1.5) gives 11.75; clamp repeats the edge,
    border reads 0 outside; with normalised coordinates u = 1.125 wraps to column 0 and mirrors
    to column 3, u = -0.125 wraps to column 3 and mirrors to column 0; tex1Dfetch outside the
    memory reads 0; uchar4 (0, 255, 51, 102) and (255, 255, 0, 204) read as normalised floats and
    filtered at texel 0, halfway and three quarters; a legacy texture<int> reference."""
    result = emulate_program(TEXTURE / "sampling.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == (
        "point clamp 0 21 1 12 0 13\n"
        "linear clamp 0 21 0.5 11.75 0 15.5\n"
        "point border 0 21 1 12 0 0\n"
        "wrap norm 10 11 10 13 1 23\n"
        "mirror norm 10 11 13 10 2 23\n"
        "fetch 0 1.5 2.5 3.5 4.5 5.5\n"
        "rgba (0 1 0.2 0.4) (0.5 1 0.1 0.6) (0.75 1 0.05 0.7)\n"
        "legacy 70 80 90 100\n")


def test_texture_objects_pass_the_scan_and_mipmaps_and_surfaces_do_not(tmp_path):
    src = tmp_path / "t.cu"
    src.write_text("__global__ void k(cudaTextureObject_t t, float* o) { o[0] = tex2D<float>(t, 0, 0); }\n"
                   "void f() { cudaArray_t a; cudaMallocArray(&a, 0, 4, 4); }\n")
    assert refuse.scan([src]) == []
    src.write_text("void f() {\n cudaMipmappedArray_t m;\n}\n__global__ void k(cudaSurfaceObject_t s) {}\n")
    assert sorted(r.feature for r in refuse.scan([src])) == ["mipmapped or cubemap textures", "surface objects"]
