package io.fsp.meridian;

/** How a full ring chooses its k primary members among its k + l members. */
public enum RingReplacement {
    /**
     * Meridian's hypervolume criterion: members measure RTTs among themselves; the node keeps the k
     * whose latency vectors span the largest polytope, i.e. the most geographically diverse set.
     */
    HYPERVOLUME,
    /** First come, first kept: primaries change only when one fails. The baseline the criterion is measured against. */
    FIRST_COME
}
