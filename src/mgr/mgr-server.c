/*
 * mgr-server.c - the daemon's settings, which main (mgr.c) fills from the
 * options and every part reads.  Apart from main, so that libpvfs-mgr
 * links into unit tests that set them up themselves.
 */
#include "mgr.h"

struct mgr_server mgr;
