void g() {
  cudnnCreate(&h);  // expect: cuda-only-library
  cudnnDestroy(h);
  cute::Tensor t;  // expect: cuda-only-library
  std::vector<int> v;
}
