/* tl_inv.c: the timeline's invocations -- an id for each send or call,
 * carried in the block to whoever takes it (docs/trace.md, "The timeline").
 *
 * The id rides in the block's spare word, which the runtime copies with the
 * block (a send's copy, a proc's own copy), so the receive that takes any
 * copy names the send it came from.  MPD_TRACE keeps the invoker in that
 * word: with both on, the timeline records sends and receives without ids
 * (no arrows). */
#include "opint.h"
#include "mpd/abi/trace.h"
#include "core/timeline.h"

void mpd__tl_invoke(int kind, const char *F, int L, mpd_invb *ib)
{
    uint32_t id = 0;
    if (!mpd_trc_on) {
        id = mpd__tl_new_id();
        ib->_pad = id;
    }
    mpd__tl_rec(kind, mpd__tl_self(), id, F, L);
}

void mpd__tl_take(const char *F, int L, mpd_invb *ib)
{
    if (ib && ib->_pad && !mpd_trc_on) {
        mpd__tl_rec(TL_TAKE, mpd__tl_self(), ib->_pad, F, L);
        ib->_pad = 0; /* taken once (a receive's slow path is an in) */
    }
}
