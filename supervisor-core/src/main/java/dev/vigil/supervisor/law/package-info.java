/** Deliberately naive law models of the supervisor laws (S1–S9, D1–D2), used as test oracles, and their invariants. */
package dev.vigil.supervisor.law;
