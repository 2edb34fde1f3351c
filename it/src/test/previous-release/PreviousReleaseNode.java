import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.LazyReactiveRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;
import io.lazysession.redis.SessionEncryption;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lettuce.core.RedisClient;

/**
 * A node of the previous release, for PreviousReleaseIT: compiled by the test against that
 * release's jars (releases/<version>/), loaded beside the current code in a class loader of its own,
 * and reached only through this one method and Spring Session's interfaces. Written against the
 * previous release's API: when a release changes what this uses, this file follows the release
 * the test runs, not main.
 */
public final class PreviousReleaseNode {
  private PreviousReleaseNode() {}

  /**
   * The servlet repository and its reactive face, configured as PreviousReleaseIT's current nodes.
   *
   * @param keys lazysession.encryption.keys, or null for none
   */
  public static Object[] open(RedisClient client, String namespace, String applicationPackage,
      String keys) {
    ClassAllowList allowList = ClassAllowList.builder()
        .allowPackages(ClassAllowList.springSecurityPackages())
        .allowPackage(applicationPackage)
        .build();
    LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
        .namespace(namespace)
        .serializer(AttributeSerializer.builder().allowList(allowList)
            // Classes named in payloads resolve through the release's loader, not the test's.
            .classLoader(PreviousReleaseNode.class.getClassLoader()).build());
    if (keys != null) {
      builder.encryption(SessionEncryption.builder().keys(EncryptionKey.parseList(keys)).build());
    }
    LazyRedisSessionRepository repository = builder.build();
    return new Object[] {repository, LazyReactiveRedisSessionRepository.of(repository)};
  }
}
