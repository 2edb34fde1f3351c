package io.lazysession.serializer;

/** The envelope was compressed with a zstd dictionary this reader does not have. */
public class UnknownDictionaryException extends SerializationException {
  private static final long serialVersionUID = 1L;
  private final int dictionaryId;

  public UnknownDictionaryException(int dictionaryId) {
    super("value was compressed with zstd dictionary id " + dictionaryId
        + " which is not configured on this reader");
    this.dictionaryId = dictionaryId;
  }

  public int dictionaryId() {
    return dictionaryId;
  }
}
