# DNN links cuDNN 9 and cuBLAS, and zlib (the IDX files are read gzip'd).
# scripts/make-bundle.sh leaves cuDNN and cuBLAS out of a bundle (about a
# gigabyte): the loader looks for them in the rpath, the bundle's lib
# folders and then the CUDA toolkit's lib64 (added here), then in
# LD_LIBRARY_PATH and the system's paths. Missing, the loader stops the
# program before main ("libcudnn.so.9: cannot open shared object file";
# README.md says what to do).
dnn_LDLIBS := -lcudnn -lcublas -lz -Xlinker -rpath=$(CUDA_HOME)/lib64
