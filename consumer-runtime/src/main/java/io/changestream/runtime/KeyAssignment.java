package io.changestream.runtime;

/**
 * How KeyBy maps routing keys to lanes. Both keep a key's events in one lane while any of them is queued, running or
 * parked, so per-key order is the same; they differ in balance and cost.
 */
public enum KeyAssignment {
    /**
     * A key with nothing in the runtime goes to the less loaded of two random lanes and stays there while it has
     * events in the runtime. Balances lanes whatever the key distribution (fixed hashing leaves the busiest of 64
     * lanes about 20% above the mean with 10,000 random keys); costs one map update per event on either side.
     * The default.
     */
    LEAST_LOADED,
    /** {@code hash(key) mod lanes}: no shared state, the cheapest; lanes are as balanced as the hash of the keys. */
    HASH
}
