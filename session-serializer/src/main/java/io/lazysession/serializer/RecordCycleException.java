package io.lazysession.serializer;

/**
 * A value holds a record that is reached again from its own components, through another object (a
 * field of that object pointing back at the record): nothing was written. A record is built from its
 * components, after they are read, so a component cannot be given the record it belongs to: Kryo and
 * Java serialization alike would read that reference back as null, without a word. The message names
 * the record and the class that holds the reference back.
 */
public class RecordCycleException extends SerializationException {
  private static final long serialVersionUID = 1L;
  private final String recordClass;

  /**
   * @param recordClass the record, as source names it
   * @param holderClass the class of the object whose field refers back to the record
   */
  public RecordCycleException(String recordClass, String holderClass) {
    super("cannot store a " + recordClass + " that is reached again from its own components (a "
        + holderClass + " in it refers back to it): a record is built only once its components are"
        + " read, so that reference would read back as null, with Kryo as with Java serialization;"
        + " break the cycle (a transient field, or the record's id instead of the record), or make "
        + recordClass + " a class");
    this.recordClass = recordClass;
  }

  /** The record that is reached again from its own components. */
  public String recordClass() {
    return recordClass;
  }
}
