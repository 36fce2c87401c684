/* Replay to fault on the controller: the state machine of refault.c with
 * its commands sent on the controller's session, each with a continuation
 * that hands its result back to the machine. */
#include "cudbg/mi.h"
#include "cudbg/model.h"
#include "cudbg/refault.h"

#include <string.h>

static void on_reply(void *ctx, const struct session_reply *rep)
{
	struct diag_refault *r = ctx;
	if (rep->rec && rep->kind != SESSION_REPLY_RUNNING)
		diag_refault_on_record(r, rep->rec);
}

void diag_refault_on_async(struct diag_refault *r, const struct mi_record *rec)
{
	if (r && rec && rec->kind == MI_REC_EXEC)
		diag_refault_on_record(r, rec);
}

enum diag_refault_state diag_refault_pump(struct diag_refault *r,
					  struct dbg_ctl *c)
{
	struct session *s = ctl_session(c);
	const char *cmd;
	while ((cmd = diag_refault_next(r))) {
		/* In a replay the recorded run command answers; live it is
		 * -exec-run either way. */
		if (strcmp(cmd, "-exec-run") == 0 && session_needs_run(s))
			session_run(s, on_reply, r);
		else
			session_send(s, on_reply, r, "%s", cmd);
	}
	return diag_refault_state(r);
}

void diag_refault_detach(struct diag_refault *r, struct dbg_ctl *c)
{
	session_forget(ctl_session(c), r);
}

struct drive {
	struct diag_refault *r;
	struct dbg_ctl *c;
};

static bool step_done(void *ctx)
{
	struct drive *d = ctx;
	enum diag_refault_state st = diag_refault_state(d->r);
	if (!session_alive(ctl_session(d->c)) || st == DIAG_RF_FAILED)
		return true;
	/* Arrived: done once the stop's refresh filled the model. */
	return st == DIAG_RF_ARRIVED && !ctl_busy(d->c) && ctl_refreshed(d->c);
}

/* Leave the wait when done or when the machine has a command to send. */
static bool wants_send(void *ctx)
{
	struct drive *d = ctx;
	return step_done(ctx) || diag_refault_pending(d->r);
}

enum diag_refault_state diag_refault_drive(struct diag_refault *r,
					   struct dbg_ctl *c, int timeout_ms)
{
	struct drive d = {r, c};
	int slices = timeout_ms < 0 ? 1 << 30 : timeout_ms / 50 + 1;
	while (slices-- > 0) {
		diag_refault_pump(r, c);
		if (step_done(&d))
			break;
		ctl_run_until(c, wants_send, &d, 50);
	}
	diag_refault_detach(r, c);
	return diag_refault_state(r);
}
