# GPMbench: libgpm, its tools and tests, the workloads, and the experiments.
# Components are found by convention, so a new workload or test needs no edit here:
#   libgpm/src/*.{c,cu}                  -> libgpm/libgpm.a
#   libgpm/tools/gpm-NAME.{c,cu}         -> build/bin/gpm-NAME
#   libgpm/tools/NAME_*.c                -> linked into build/bin/gpm-NAME (its parts)
#   libgpm/bench/NAME.{c,cu}             -> build/bin/NAME
#   libgpm/tests/{cpu,gpu}/test_*.{c,cu} -> build/tests/{cpu,gpu}/test_*
#   workloads/common/*.{c,cu}            -> build/libharness.a (its main() runs the workload)
#   workloads/common/tests/cpu/test_*    -> build/tests/cpu/common_test_* (with a fake workload)
#   workloads/W/*.{c,cu}                 -> build/bin/W
#   workloads/W/tests/{cpu,gpu}/test_*   -> build/tests/{cpu,gpu}/W_test_*
#   workloads/W/workload.mk (optional)   -> W_LDLIBS: extra libraries W links (cuDNN, ...)

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc
SCALE     ?= small
comma := ,
empty :=
space := $(empty) $(empty)
TRIALS    ?= 50
PLATFORM  ?= local
export SCALE TRIALS PLATFORM

# GPU architecture: the local GPU's if one is visible, else a fat binary for
# every generation this nvcc still builds (sm_70 where supported) plus PTX.
ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. ')
ifeq ($(strip $(ARCH)),)
FAT_ARCHS := $(filter 70 75 80 90,$(patsubst compute_%,%,$(shell $(NVCC) --list-gpu-arch 2>/dev/null)))
ifeq ($(filter 70,$(FAT_ARCHS)),)
FAT_ARCHS := $(filter-out 75,$(FAT_ARCHS))
FAT_ARCHS := 75 $(FAT_ARCHS)
endif
GENCODE := $(foreach a,$(sort $(FAT_ARCHS)),-gencode arch=compute_$(a),code=sm_$(a)) -gencode arch=compute_90,code=compute_90
else
GENCODE := -gencode arch=compute_$(ARCH),code=[sm_$(ARCH),compute_$(ARCH)]
endif

GIT_REV := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
INCLUDES := -Ilibgpm/include -Iworkloads/common -I$(CUDA_HOME)/include
DEFINES  := -D_GNU_SOURCE -DGPM_GIT_REV='"$(GIT_REV)"'
WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 $(WARN) -fopenmp -MMD -MP $(INCLUDES) $(DEFINES)
NVFLAGS  ?= -O3 -lineinfo
NVFLAGS  += -std=c++17 $(GENCODE) -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror,-fopenmp \
            -MMD -MP $(INCLUDES) $(DEFINES)
# $ORIGIN rpath (DT_RPATH, which also covers libpmem's own dependencies):
# programs find the bundled libpmem/libpci in ../lib when
# copied to a machine that lacks those packages.
LDFLAGS  += -Xlinker --disable-new-dtags -Xlinker -rpath='$$ORIGIN/../lib:$$ORIGIN/../../lib' -Xcompiler -fopenmp
LDLIBS   += -lpmem -lpci -lpthread -ldl -lrt -lm

B ?= build
LIBGPM  ?= libgpm/libgpm.a
HARNESS := $(B)/libharness.a

# Rows name the revision that made them (platform.c compiles GIT_REV in):
# a stamp that changes with it rebuilds that object, so a rebuilt program
# never reports the revision of an older build.
REV_STAMP := $(B)/git-rev
# make compare's B names a results folder, not the build's: nothing is
# made in it.
ifneq ($(MAKECMDGOALS),compare)
$(shell mkdir -p $(B) && (echo '$(GIT_REV)' | cmp -s - $(REV_STAMP) || echo '$(GIT_REV)' >$(REV_STAMP)))
endif

srcs     = $(wildcard $(1)/*.c) $(wildcard $(1)/*.cu)
objs     = $(patsubst %,$(B)/%.o,$(basename $(1)))
progname = $(notdir $(basename $(1)))

LIB_OBJS     := $(call objs,$(call srcs,libgpm/src))
HARNESS_OBJS := $(call objs,$(call srcs,workloads/common))
TOOL_SRCS    := $(wildcard libgpm/tools/gpm-*.c libgpm/tools/gpm-*.cu) $(call srcs,libgpm/bench)
tool_parts    = $(wildcard libgpm/tools/$(patsubst gpm-%,%,$(call progname,$(1)))_*.c)
TOOLS        := $(foreach s,$(TOOL_SRCS),$(B)/bin/$(call progname,$(s)))
CPU_TEST_SRCS := $(call srcs,libgpm/tests/cpu)
GPU_TEST_SRCS := $(call srcs,libgpm/tests/gpu)
CPU_TESTS    := $(foreach s,$(CPU_TEST_SRCS),$(B)/tests/cpu/$(call progname,$(s)))
GPU_TESTS    := $(foreach s,$(GPU_TEST_SRCS),$(B)/tests/gpu/$(call progname,$(s)))
WL_DIRS      := $(filter-out common,$(notdir $(patsubst %/,%,$(dir $(wildcard workloads/*/)))))
WL_BINS      := $(foreach w,$(WL_DIRS),$(B)/bin/$(w))
# Experiments run every workload unless WORKLOADS= names some.
WORKLOADS    ?= $(subst $(space),$(comma),$(strip $(WL_DIRS)))
export WORKLOADS

all: $(LIBGPM) $(TOOLS) $(WL_BINS) tests
.PHONY: all tests deps test test-gpu bundle install clean reports compare reproduce figure_1 figure_1a figure_1b figure_3 figure_9 figure_10 figure_11a figure_12 figure_ycsb \
        figure_11b table_4 table_5 crash check-persistency mutants nvc roofline sbrp

deps:
	@scripts/install-deps.sh

# Below all: the first rule of this file is what a plain make builds.
$(B)/libgpm/src/platform.o: $(REV_STAMP)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/%.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(LIBGPM): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(HARNESS): $(HARNESS_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

link = @mkdir -p $(@D); echo "LINK $@"; $(NVCC) $(GENCODE) $(LDFLAGS) -o $@ $(1) $(LDLIBS)

# Programs of libgpm (tools and microbenchmarks).
define tool_rule
$(B)/bin/$(call progname,$(1)): $(call objs,$(1) $(call tool_parts,$(1))) $(LIBGPM)
	$$(call link,$$^)
endef
$(foreach s,$(TOOL_SRCS),$(eval $(call tool_rule,$(s))))

# Tests of libgpm, one binary per file.
define test_rule
$(B)/tests/$(2)/$(call progname,$(1)): $(call objs,$(1)) $(LIBGPM)
	$$(call link,$$^)
endef
$(foreach s,$(CPU_TEST_SRCS),$(eval $(call test_rule,$(s),cpu)))
$(foreach s,$(GPU_TEST_SRCS),$(eval $(call test_rule,$(s),gpu)))

# Workloads: their objects + the harness (which holds main) + libgpm, and
# the libraries their workload.mk names. A workload's tests link the same
# objects with their own main instead.
-include $(wildcard workloads/*/workload.mk)
wl_link = @mkdir -p $(@D); echo "LINK $@"; $(NVCC) $(GENCODE) $(LDFLAGS) -o $@ $(1) $(2) $(LDLIBS)
define workload_rule
$(1)_OBJS := $(call objs,$(call srcs,workloads/$(1)))
$(B)/bin/$(1): $$($(1)_OBJS) $(HARNESS) $(LIBGPM)
	$$(call wl_link,$$^,$$($(1)_LDLIBS))
endef
$(foreach w,$(WL_DIRS),$(eval $(call workload_rule,$(w))))

# The harness's own tests: each brings a fake workload and its main.
COMMON_TEST_SRCS := $(call srcs,workloads/common/tests/cpu)
define common_test_rule
$(B)/tests/cpu/common_$(call progname,$(1)): $(call objs,$(1)) $(HARNESS) $(LIBGPM)
	$$(call link,$$^)
endef
$(foreach s,$(COMMON_TEST_SRCS),$(eval $(call common_test_rule,$(s))))
CPU_TESTS += $(foreach s,$(COMMON_TEST_SRCS),$(B)/tests/cpu/common_$(call progname,$(s)))

# workloads/W/tests/KIND/test_x.c -> build/tests/KIND/W_test_x
WL_TEST_SRCS := $(foreach w,$(WL_DIRS),$(call srcs,workloads/$(w)/tests/cpu) $(call srcs,workloads/$(w)/tests/gpu))
wl_of    = $(word 2,$(subst /, ,$(1)))
kind_of  = $(word 4,$(subst /, ,$(1)))
wl_test  = $(B)/tests/$(call kind_of,$(1))/$(call wl_of,$(1))_$(call progname,$(1))
define wl_test_rule
$(call wl_test,$(1)): $(call objs,$(1)) $$($(call wl_of,$(1))_OBJS) $(HARNESS) $(LIBGPM)
	$$(call wl_link,$$^,$$($(call wl_of,$(1))_LDLIBS))
endef
$(foreach s,$(WL_TEST_SRCS),$(eval $(call wl_test_rule,$(s))))
CPU_TESTS += $(foreach s,$(WL_TEST_SRCS),$(if $(filter cpu,$(call kind_of,$(s))),$(call wl_test,$(s))))
GPU_TESTS += $(foreach s,$(WL_TEST_SRCS),$(if $(filter gpu,$(call kind_of,$(s))),$(call wl_test,$(s))))

tests: $(CPU_TESTS) $(GPU_TESTS)

# CPU tests: run on any machine, GPU or not.
test: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-tests.sh cpu $(B)

# GPU tests: every workload in every mode, device API round trips, crash trials.
test-gpu: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-tests.sh gpu $(B)

# A relocatable folder: programs, tests, scripts and the shared libraries
# they need, for a machine with a CUDA driver but without the -dev packages.
bundle: deps
	@$(MAKE) --no-print-directory all
	@scripts/make-bundle.sh $(B) bundle

# libgpm for programs built elsewhere: PREFIX/lib/libgpm.a, its headers and
# gpm.pc (pkg-config --cflags --libs gpm).
PREFIX ?= /usr/local
GPM_VERSION := 0.2.0
install: $(LIBGPM)
	@scripts/install.sh $(PREFIX) $(LIBGPM) $(GPM_VERSION)+$(GIT_REV) $(CUDA_HOME)

# Experiments: thin wrappers over scripts/experiment.sh (see README). Each
# target that needs the build makes it in a sub-make after deps, never
# beside it: under make -j, a prerequisite list "deps all" would compile
# before the -dev packages are in.
figure_1a figure_1b figure_3 figure_9 figure_10 figure_11a figure_11b figure_12 table_4 table_5 crash roofline figure_ycsb sbrp: deps
	@$(MAKE) --no-print-directory all
	@scripts/experiment.sh $@ $(B)/bin

# The persistency checker over the workloads (gpm-check's crash images), and
# its mutants (one persist point removed each) beside SIGKILL trials of the
# same mutants; and NVC's question, whether a workload restarts from what PM
# holds with no persist honoured (IMAGES, default 1000, crash images each).
# SCALE defaults to tiny here. Without a GPU, the cpu modes.
check-persistency mutants nvc: deps
	@$(MAKE) --no-print-directory all
	@SCALE=$(if $(filter file,$(origin SCALE)),tiny,$(SCALE)) scripts/experiment.sh $@ $(B)/bin

# Both panels of Figure 1, one after the other: side by side they would
# share the GPU and the cores they measure.
figure_1:
	@$(MAKE) --no-print-directory figure_1a
	@$(MAKE) --no-print-directory figure_1b

# Every figure and table, then reports/$(PLATFORM)/summary.md; SCALE defaults to paper here.
reproduce: deps
	@$(MAKE) --no-print-directory all
	@SCALE=$(if $(filter file,$(origin SCALE)),paper,$(SCALE)) scripts/reproduce.sh $(B)/bin

# The reports of results/$(PLATFORM)/ in reports/$(PLATFORM)/. Rows of several
# revisions need REF_REV=<rev> (its rows alone) or REF_REV=any (a history).
reports:
	@scripts/reports.sh

# Two platforms' results side by side: make compare A=results/h100-dram B=results/h200-dram
# (reports/compare/A-vs-B.{tsv,png}). B is the build folder's variable too:
# only a B given on the command line names results.
compare:
	@scripts/compare.sh "$(A)" "$(if $(filter command line,$(origin B)),$(B))"

clean:
	rm -rf $(B) bundle $(LIBGPM)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
