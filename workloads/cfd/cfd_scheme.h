/* The finite-volume scheme of Rodinia's euler3d (Corrigan et al., AIAA
 * 2009-4001), written once in the precision CFD_R: cfd_model.h includes
 * this file twice, for float (the kernels and the CPU tests of the same
 * code) and for double (the reference a run is verified against). Names
 * get the precision's suffix through CFD_FN: cfd_flux_f, cfd_flux_d.
 *
 * Unknowns per element (SoA, stride n): density, momentum x/y/z, energy
 * density. Each element's right-hand side ("flux") sums over its 4 faces a
 * central flux 0.5 n.(F_i + F_nb) plus a scalar artificial viscosity on
 * interior faces; a wall face adds the pressure force; a far-field face
 * takes the free stream as its neighbour, without viscosity. The stored
 * normals point into the element and are scaled by the face's area, so
 * the right-hand side is -(sum over faces of F.n_out A). */
#if !defined(CFD_R) || !defined(CFD_FN) || !defined(CFD_SQRT)
#error "cfd_scheme.h is included by cfd_model.h with CFD_R, CFD_FN and CFD_SQRT defined"
#endif

/* One element's state and what the fluxes need of it. */
typedef struct CFD_FN(cfd_cell) {
    CFD_R rho, m[3], e;  /* conserved: density, momentum, energy density */
    CFD_R v[3], v2;      /* velocity and its square */
    CFD_R p, c;          /* pressure, speed of sound */
    CFD_R f[4][3];       /* f[k][a]: flux along axis a of momentum k (k < 3) or energy (k = 3) */
} CFD_FN(cfd_cell);

/* The physical flux tensor of a state whose velocity V and pressure P are known. */
GPM_HD void CFD_FN(cfd_cell_flux)(CFD_FN(cfd_cell) *s)
{
    for (int a = 0; a < 3; a++) {
        for (int k = 0; k < 3; k++)
            s->f[k][a] = s->v[k] * s->m[a];
        s->f[a][a] += s->p;
        s->f[3][a] = s->v[a] * (s->e + s->p);
    }
}

/* Element I's cell from the variables VAR (stride N). */
GPM_HD void CFD_FN(cfd_cell_of)(const CFD_R *var, uint64_t n, uint64_t i, CFD_FN(cfd_cell) *s)
{
    const CFD_R g1 = (CFD_R)CFD_GAMMA - (CFD_R)1;
    s->rho = var[cfd_var_at(n, i, CFD_DENSITY)];
    for (int k = 0; k < 3; k++)
        s->m[k] = var[cfd_var_at(n, i, CFD_MOMENTUM + k)];
    s->e = var[cfd_var_at(n, i, CFD_ENERGY)];
    for (int k = 0; k < 3; k++)
        s->v[k] = s->m[k] / s->rho;
    s->v2 = s->v[0] * s->v[0] + s->v[1] * s->v[1] + s->v[2] * s->v[2];
    s->p = g1 * (s->e - (CFD_R)0.5 * s->rho * s->v2);
    s->c = CFD_SQRT((CFD_R)CFD_GAMMA * s->p / s->rho);
    CFD_FN(cfd_cell_flux)(s);
}

/* The free stream (Rodinia's far-field conditions): density 1.4, pressure
 * 1, so the speed of sound is 1, at Mach 1.2 along +x (angle of attack 0). */
GPM_HD void CFD_FN(cfd_free_stream)(CFD_FN(cfd_cell) *s)
{
    CFD_R speed;
    s->rho = (CFD_R)CFD_FF_DENSITY;
    s->p = (CFD_R)CFD_FF_PRESSURE;
    s->c = CFD_SQRT((CFD_R)CFD_GAMMA * s->p / s->rho);
    speed = (CFD_R)CFD_FF_MACH * s->c;
    s->v[0] = speed;
    s->v[1] = 0;
    s->v[2] = 0;
    s->v2 = speed * speed;
    for (int k = 0; k < 3; k++)
        s->m[k] = s->rho * s->v[k];
    s->e = s->rho * ((CFD_R)0.5 * s->v2) + s->p / ((CFD_R)CFD_GAMMA - (CFD_R)1);
    CFD_FN(cfd_cell_flux)(s);
}

/* Element I's variables set to the free stream FF. */
GPM_HD void CFD_FN(cfd_init_elem)(CFD_R *var, uint64_t n, uint64_t i, const CFD_FN(cfd_cell) *ff)
{
    var[cfd_var_at(n, i, CFD_DENSITY)] = ff->rho;
    for (int k = 0; k < 3; k++)
        var[cfd_var_at(n, i, CFD_MOMENTUM + k)] = ff->m[k];
    var[cfd_var_at(n, i, CFD_ENERGY)] = ff->e;
}

/* Local time step over the volume: 0.5 / (sqrt(vol) (|v| + c)). Rodinia
 * folds the division by the volume into the step ("area" is its name for
 * the volume). */
GPM_HD CFD_R CFD_FN(cfd_step_factor)(const CFD_R *var, uint64_t n, uint64_t i, float vol)
{
    CFD_FN(cfd_cell) s;
    CFD_FN(cfd_cell_of)(var, n, i, &s);
    return (CFD_R)0.5 / (CFD_SQRT((CFD_R)vol) * (CFD_SQRT(s.v2) + s.c));
}

/* Adds the central flux through a face of inward normal NV (area-weighted)
 * between element state S and neighbour state T to ACC. */
GPM_HD void CFD_FN(cfd_central)(const CFD_FN(cfd_cell) *s, const CFD_FN(cfd_cell) *t,
                                const CFD_R nv[3], CFD_R acc[CFD_NVAR])
{
    for (int a = 0; a < 3; a++) {
        CFD_R h = (CFD_R)0.5 * nv[a];
        acc[CFD_DENSITY] += h * (t->m[a] + s->m[a]);
        acc[CFD_ENERGY] += h * (t->f[3][a] + s->f[3][a]);
        for (int k = 0; k < 3; k++)
            acc[CFD_MOMENTUM + k] += h * (t->f[k][a] + s->f[k][a]);
    }
}

/* The right-hand side of element I: OUT[v] for each variable. NB and
 * NORMAL are the mesh's (cfd_nb_at, cfd_normal_at), FF the free stream. */
GPM_HD void CFD_FN(cfd_flux)(uint64_t i, uint64_t n, const int32_t *nb, const float *normal,
                             const CFD_R *var, const CFD_FN(cfd_cell) *ff, CFD_R out[CFD_NVAR])
{
    CFD_FN(cfd_cell) s, t;
    CFD_R speed_i;
    CFD_FN(cfd_cell_of)(var, n, i, &s);
    speed_i = CFD_SQRT(s.v2);
    for (int v = 0; v < CFD_NVAR; v++)
        out[v] = 0;
    for (int j = 0; j < CFD_NNB; j++) {
        int32_t o = nb[cfd_nb_at(n, i, j)];
        CFD_R nv[3];
        for (int a = 0; a < 3; a++)
            nv[a] = (CFD_R)normal[cfd_normal_at(n, i, j, a)];
        if (o >= 0) {
            CFD_R len = CFD_SQRT(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
            CFD_R visc;
            CFD_FN(cfd_cell_of)(var, n, (uint64_t)o, &t);
            /* Artificial viscosity: symmetric in the two elements, so an
             * interior face takes from one what it gives the other. */
            visc = -len * (CFD_R)CFD_SMOOTHING * (CFD_R)0.5 *
                   (speed_i + CFD_SQRT(t.v2) + s.c + t.c);
            out[CFD_DENSITY] += visc * (s.rho - t.rho);
            out[CFD_ENERGY] += visc * (s.e - t.e);
            for (int k = 0; k < 3; k++)
                out[CFD_MOMENTUM + k] += visc * (s.m[k] - t.m[k]);
            CFD_FN(cfd_central)(&s, &t, nv, out);
        } else if (o == CFD_WALL) {
            for (int k = 0; k < 3; k++)
                out[CFD_MOMENTUM + k] += nv[k] * s.p;
        } else if (o == CFD_FAR_FIELD) {
            CFD_FN(cfd_central)(&s, ff, nv, out);
        }
    }
}

/* Runge-Kutta stage J (0..CFD_RK-1) of element I: VAR = OLD + SF / (RK + 1 - J) FLUX. */
GPM_HD void CFD_FN(cfd_time_step)(uint64_t i, uint64_t n, int j, const CFD_R *old, CFD_R *var,
                                  const CFD_R *sf, const CFD_R *flux)
{
    CFD_R factor = sf[i] / (CFD_R)(CFD_RK + 1 - j);
    for (int v = 0; v < CFD_NVAR; v++)
        var[cfd_var_at(n, i, v)] = old[cfd_var_at(n, i, v)] + factor * flux[cfd_var_at(n, i, v)];
}
