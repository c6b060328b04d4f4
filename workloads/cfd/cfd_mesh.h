/* CFD's input: an unstructured mesh of tetrahedra in Rodinia's euler3d
 * format, read from a file (through a binary cache, so that a text mesh is
 * parsed once) or generated. Host code; every function returns 0 / -1 with
 * a one-line message in gpm_last_error() naming the file (and line) and
 * the fix. Not thread-safe: one caller at a time per mesh. */
#ifndef CFD_MESH_H
#define CFD_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "cfd_model.h"
#include "gpm/gpm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bounds of a mesh: neighbours are int32 in the file and in memory. */
#define CFD_MAX_ELEMENTS (1ll << 26)

/* A mesh in memory, in the kernels' layout (cfd_model.h). Owns its arrays. */
struct cfd_mesh {
    uint64_t n;        /* elements */
    float *vol;        /* [n] volumes (Rodinia's "areas") */
    int32_t *nb;       /* [4n] at cfd_nb_at: 0-based neighbour, CFD_WALL or CFD_FAR_FIELD */
    float *normal;     /* [12n] at cfd_normal_at: inward, scaled by the face's area */
    uint64_t hash;     /* cfd_mesh_hash of the above, set by every loader */
};

/* Arrays for N elements (uninitialised); 0, or -1 out of memory. */
int cfd_mesh_alloc(struct cfd_mesh *m, uint64_t n);
/* Frees the arrays; safe on a zeroed or freed mesh. */
void cfd_mesh_free(struct cfd_mesh *m);
/* A 64-bit fingerprint of the element count and every array. */
uint64_t cfd_mesh_hash(const struct cfd_mesh *m);

/* ---- the generator (cfd_gen.c) ---- */
struct cfd_gen {
    uint64_t elements;  /* exactly this many tetrahedra */
    uint64_t seed;      /* vertex jitter */
    int body;           /* 1: a slender body (the "missile") with wall faces inside the box */
};
/* A box of jittered cubes, each split into 6 tetrahedra, around a slender
 * body along the flow that runs out of the box downstream: far-field faces
 * on the box, wall faces on the body; the first G->elements tetrahedra
 * (layer by layer from the downstream end) are kept and the faces they
 * share with dropped ones become far field. Deterministic for (elements,
 * seed, body). */
int cfd_mesh_generate(struct cfd_mesh *m, const struct cfd_gen *g);

/* ---- the text format (cfd_mesh.c) ----
 * The element count, then per element its volume and, for each of its 4
 * faces, the neighbour (1-based; 0 a wall, negative the far field) and the
 * face's outward normal scaled by its area (3 numbers); whitespace of any
 * kind between numbers. */
int cfd_mesh_read_text(struct cfd_mesh *m, const char *path);
int cfd_mesh_write_text(const struct cfd_mesh *m, const char *path);

/* ---- the binary cache (cfd_cache.c) ---- */
enum cfd_cache_state { CFD_CACHE_HIT, CFD_CACHE_BUILT, CFD_CACHE_REBUILT };
/* The cache file of the text mesh PATH in DIR (wl_data_dir()). */
int cfd_cache_path(const char *path, const char *dir, char *out, size_t len);
/* Loads the text mesh PATH through its cache in DIR: the cache is used when
 * it records PATH's present size and modification time and its checksum
 * holds; otherwise PATH is parsed and the cache (re)written. *STATE says
 * which (may be NULL). */
int cfd_mesh_load(struct cfd_mesh *m, const char *path, const char *dir,
                  enum cfd_cache_state *state);

#ifdef __cplusplus
}
#endif

#endif
