# examples: programs on the public API only (examples/README.md).
EXAMPLES = examples/pvfs-example-stripes examples/pvfs-example-copy \
	examples/pvfs-example-ls examples/pvfs-example-matrix
noinst_PROGRAMS += $(EXAMPLES)
examples_pvfs_example_stripes_SOURCES = examples/stripes.c
examples_pvfs_example_stripes_LDADD = libpvfs.la
examples_pvfs_example_copy_SOURCES = examples/copy.c
examples_pvfs_example_copy_LDADD = libpvfs.la
examples_pvfs_example_ls_SOURCES = examples/ls.c
examples_pvfs_example_ls_LDADD = libpvfs.la
examples_pvfs_example_matrix_SOURCES = examples/matrix.c
examples_pvfs_example_matrix_LDADD = libpvfs.la
EXTRA_DIST += examples/README.md
