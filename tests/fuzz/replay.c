/*
 * Runs a libFuzzer target over every file of the corpus folders given as
 * arguments, so that `meson test` replays the corpora (and any crash found
 * by fuzzing, once added to the corpus) without libFuzzer.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "base/pr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	struct pr_buf b = PR_BUF_INIT;
	int err = pr_buf_read_file(&b, path);

	if (err) {
		fprintf(stderr, "replay: %s\n", pr_error_message());
		return -1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)b.ptr, b.len);
	pr_buf_release(&b);
	return 0;
}

static int run_path(const char *path, size_t *count)
{
	struct stat st;
	DIR *dir;
	struct dirent *de;
	int err = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: cannot stat '%s'\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	dir = opendir(path);
	if (!dir)
		return -1;
	while (!err && (de = readdir(dir))) {
		struct pr_buf child = PR_BUF_INIT;

		if (de->d_name[0] == '.')
			continue;
		pr_buf_addf(&child, "%s/%s", path, de->d_name);
		err = run_path(child.ptr, count);
		pr_buf_release(&child);
	}
	closedir(dir);
	return err;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int i;

	for (i = 1; i < argc; i++)
		if (run_path(argv[i], &count))
			return 1;
	/* An empty input is always worth a run. */
	LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
	printf("replayed %zu inputs\n", count + 1);
	return count ? 0 : 77;
}
