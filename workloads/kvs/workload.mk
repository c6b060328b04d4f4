# gpKVS links Figure 1a's CPU stores: PMDK's libpmemobj and RocksDB (Debian's
# libpmemobj-dev and librocksdb-dev; scripts/install-deps.sh installs them).
kvs_LDLIBS := -lpmemobj -lrocksdb
