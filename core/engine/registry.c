#include "base/pr.h"
#include "engine/registry.h"

const struct pr_connector_type *
pr_registry_connector(const struct pr_registry *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_connectors; i++)
		if (!strcmp(r->connectors[i]->name, name))
			return r->connectors[i];
	return NULL;
}

const struct pr_plugin_type *pr_registry_plugin(const struct pr_registry *r,
						const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_plugins; i++)
		if (!strcmp(r->plugins[i]->name, name))
			return r->plugins[i];
	return NULL;
}
