/* replay.c - runs a fuzz target over saved inputs without libFuzzer, so CI can
   replay the corpus with any compiler and any sanitizer (or none).

   Usage: fuzz_<target>_replay [-v] [FILE_OR_DIRECTORY...]
   With no file arguments it replays the directory FUZZ_CORPUS it was built with.
   Each file is one test; a broken invariant aborts (-v names each file before it is
   replayed, to tell which one). Ends with "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L /* opendir and stat under -std=c99 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int passed, failed, verbose;

static void replay_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    long length;
    uint8_t *data;
    if (!file || fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
        fprintf(stderr, "FAIL cannot read %s\n", path);
        if (file) fclose(file);
        failed++;
        return;
    }
    /* Exactly the file's size, so a read past the input is caught too. */
    data = (uint8_t *)malloc(length > 0 ? (size_t)length : 1);
    if (!data || fread(data, 1, (size_t)length, file) != (size_t)length) {
        fprintf(stderr, "FAIL cannot read %s\n", path);
        failed++;
    } else {
        if (verbose) fprintf(stderr, "replaying %s\n", path);
        LLVMFuzzerTestOneInput(data, (size_t)length);
        passed++;
    }
    free(data);
    fclose(file);
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void replay_path(const char *path)
{
    struct stat info;
    DIR *dir;
    struct dirent *entry;
    char **names = NULL;
    size_t count = 0, i;
    if (stat(path, &info) != 0) { fprintf(stderr, "FAIL no such file or directory: %s\n", path); failed++; return; }
    if (!S_ISDIR(info.st_mode)) { replay_file(path); return; }
    if (!(dir = opendir(path))) { fprintf(stderr, "FAIL cannot open %s\n", path); failed++; return; }
    while ((entry = readdir(dir)) != NULL) { /* sorted, so runs are repeatable */
        char **grown;
        if (entry->d_name[0] == '.') continue;
        grown = (char **)realloc(names, (count + 1) * sizeof *names);
        if (!grown) break;
        names = grown;
        names[count] = (char *)malloc(strlen(path) + strlen(entry->d_name) + 2);
        if (!names[count]) break;
        sprintf(names[count], "%s/%s", path, entry->d_name);
        count++;
    }
    closedir(dir);
    qsort(names, count, sizeof *names, compare_names);
    for (i = 0; i < count; ++i) { replay_file(names[i]); free(names[i]); }
    free(names);
}

int main(int argc, char **argv)
{
    int i, first = 1;
    if (argc > 1 && strcmp(argv[1], "-v") == 0) { verbose = 1; first = 2; }
#ifdef FUZZ_CORPUS
    if (argc <= first) replay_path(FUZZ_CORPUS);
#endif
    for (i = first; i < argc; ++i) replay_path(argv[i]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
