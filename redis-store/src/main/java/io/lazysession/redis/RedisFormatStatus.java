package io.lazysession.redis;

import java.time.Instant;
import java.util.List;

/**
 * The Redis format of a namespace, as the nodes serving it announce it: what {@link
 * LazyRedisSessionRepository#formatStatus()} reports and {@link
 * LazyRedisSessionRepository#finalizeFormat()} acts on (docs/versioning.md, "Rolling upgrades").
 * Immutable.
 *
 * @param reads the newest Redis format this node reads
 * @param writes the Redis format this node writes now: the namespace's finalized format, or the
 *     newest this node reads if that is older
 * @param finalized the format the namespace is finalized at; 1 until a finalize moves it
 * @param nodes every node that announced itself within the last day, this one included, live or
 *     not, in the order Redis answered them
 */
public record RedisFormatStatus(int reads, int writes, int finalized, List<Node> nodes) {

  /** Copies {@code nodes}. */
  public RedisFormatStatus {
    nodes = List.copyOf(nodes);
  }

  /**
   * The newest format every live node reads, at least 1: the format {@code finalizeFormat()} moves
   * the namespace to.
   */
  public int readByAllLiveNodes() {
    int format = Integer.MAX_VALUE;
    for (Node node : nodes) {
      if (node.live()) {
        format = Math.min(format, node.reads());
      }
    }
    return format == Integer.MAX_VALUE ? reads : Math.max(1, format);
  }

  /**
   * One node of the namespace, as it last announced itself.
   *
   * @param id a random id the node picked when it started
   * @param version the lazysession version it runs ({@code development} outside a released jar)
   * @param host its host name
   * @param reads the newest Redis format it reads
   * @param writes the Redis format it wrote when it announced itself
   * @param seen when it last announced itself, by the Redis server's clock
   * @param live whether it announced itself recently enough to count as running (nodes announce
   *     themselves every 30 seconds; one silent for 100 seconds does not count)
   * @param self whether it is the node that made this report
   */
  public record Node(String id, String version, String host, int reads, int writes, Instant seen,
      boolean live, boolean self) {}
}
