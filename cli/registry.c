#include "base/pr.h"
#include "commands.h"
#include "connectors.h"
#include "gerrit.h"
#include "patchwork.h"
#include "plugins.h"
#include "checks.h"
#include "hook.h"

/*
 * The built-in connector and plugin types.  Each type's definition lives in
 * its own file under connectors/ or plugins/; list it here, sorted by name.
 */

/* clang-format off */
static const struct pr_connector_type *const connectors[] = {
	&pr_connector_gerrit,
	&pr_connector_git,
	&pr_connector_github,
	&pr_connector_gitlab,
	&pr_connector_imap,
	&pr_connector_maildir,
	&pr_connector_mbox,
	&pr_connector_patchwork,
	&pr_connector_public_inbox,
	&pr_connector_smtp,
	NULL,
};
/* clang-format on */

/* one entry a line, so that merges of this list stay clean */
/* clang-format off */
static const struct pr_plugin_type *const plugins[] = {
	&pr_plugin_exec,
	&pr_plugin_kernel_ci,
	&pr_plugin_maintainers,
	&pr_plugin_mass_edit,
	&pr_plugin_msg_lint,
	&pr_plugin_size_limit,
	NULL,
};
/* clang-format on */

static const struct pr_registry builtin = {
	connectors,    PR_ARRAY_SIZE(connectors) - 1,
	plugins,       PR_ARRAY_SIZE(plugins) - 1,
	pr_hook_types,
};

const struct pr_registry *pr_builtin_registry(void)
{
	return &builtin;
}
