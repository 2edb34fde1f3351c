package io.lazysession.it.soak;

/** What the soak does to Redis, in the order of {@link SoakConfig#faults()}. */
enum Fault {
  CLIENT_KILL("client connections killed", "`CLIENT KILL TYPE normal` on the primary"),
  CLIENT_PAUSE("CLIENT PAUSE", "`CLIENT PAUSE 700 ALL` on the primary"),
  DEBUG_SLEEP("DEBUG SLEEP", "`DEBUG SLEEP 0.7` on the primary"),
  OUT_OF_MEMORY("out of memory", "`CONFIG SET maxmemory` to half the primary's used memory "
      + "(policy `noeviction`) for 3 s, then back to 0"),
  PRIMARY_PAUSE("primary paused", "the primary frozen for 3 s (longer than Sentinel's "
      + "down-after of 1 s), then resumed: SIGSTOP / SIGCONT of a local server, `docker pause` / "
      + "`docker unpause` of a container"),
  FAILOVER("failover", "`SENTINEL FAILOVER` while the primary is healthy"),
  PRIMARY_KILL("primary killed", "SIGKILL of the primary (`docker kill` of a container); once "
      + "Sentinel promoted the replica, the killed server is started again, empty, and Sentinel "
      + "makes it a replica");

  private final String label;
  private final String how;

  Fault(String label, String how) {
    this.label = label;
    this.how = how;
  }

  String label() {
    return label;
  }

  String how() {
    return how;
  }
}
