/**
 * The reference model of coordination ({@link dev.vigil.coordination.law.LeaseLaw}), the
 * invariants every store must keep, and a step/transcript API to compare any implementation with
 * the model: users reuse them as an oracle for their own {@code Coordination}.
 */
package dev.vigil.coordination.law;
