# DNN links cuDNN 9 and cuBLAS (from the CUDA toolkit's lib64, or wherever
# the loader finds them: scripts/make-bundle.sh leaves them out of a bundle)
# and zlib (the IDX files are read gzip'd).
dnn_LDLIBS := -lcudnn -lcublas -lz
