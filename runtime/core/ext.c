/* ext.c: waits ended by another OS thread, and the idle hook -- what a
 * layer that brings work from outside the process (the distributed layer,
 * runtime/dist/) needs from the core.  See mpd/rt.h, "External events". */
#include "core/rt_internal.h"

/* Processes waiting in mpd_ext_wait with visible = 0: left out of the
 * count of live processes when the program is quiescent. */
atomic_long mpd__ext_hidden;
/* Asked before the program is declared quiescent (vp.c). */
int (*mpd__idle_hook)(void);

void mpd_rt_set_idle_hook(int (*fn)(void))
{
    /* set by a process while other VPs may be looking (TSan) */
    __atomic_store_n(&mpd__idle_hook, fn, __ATOMIC_RELEASE);
}

/* Asked by a VP with nothing to do before it sleeps (vp.c poll_outside). */
int (*mpd__poll_hook)(void);

void mpd_rt_set_poll_hook(int (*fn)(void))
{
    __atomic_store_n(&mpd__poll_hook, fn, __ATOMIC_RELEASE);
}

void mpd_ext_init(mpd_ext *e)
{
    mpd_spin_init(&e->lk);
    e->token = 0;
    e->waiter = NULL;
    e->hidden = 0;
}

void mpd_ext_wait(mpd_ext *e, int visible)
{
    mpd_proc *self = mpd_self();
    mpd_spin_lock(&e->lk);
    if (e->token) {
        e->token = 0;
        mpd_spin_unlock(&e->lk);
        return;
    }
    e->waiter = self;
    e->hidden = !visible;
    if (!visible) {
        atomic_fetch_add(&mpd__ext_hidden, 1);
        /* not reported as blocked, not waiting on anything of the program */
        PSTATE_SET(self, P_IOWAIT);
        mpd__switch_out(PS_UNLOCK, NULL, &e->lk);
    } else {
        mpd_park(&e->lk);
    }
}

void mpd_ext_wake(mpd_ext *e)
{
    mpd_spin_lock(&e->lk);
    mpd_proc *p = e->waiter;
    if (!p) {
        e->token = 1;
        mpd_spin_unlock(&e->lk);
        return;
    }
    e->waiter = NULL;
    if (e->hidden)
        atomic_fetch_sub(&mpd__ext_hidden, 1);
    mpd_spin_unlock(&e->lk);
    /* the lock was released by the core once p was switched out */
    mpd__ready_remote(p);
    mpd__wake_idle_vp();
}

void mpd_rt_wake_idle(void)
{
    mpd__wake_idle_vp();
}
