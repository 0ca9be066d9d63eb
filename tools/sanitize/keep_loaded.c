/* keep_loaded.c — preloaded into the sanitizer job's test processes (tools/sanitize/run.sh): dlclose
 * does nothing, so every shared object stays loaded until exit. Open MPI and PMIx unload their
 * components at MPI_Finalize; LeakSanitizer, which names a leaked block's modules at exit, then
 * prints "<unknown module>" frames that no suppression can match. Built without sanitizers. */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
