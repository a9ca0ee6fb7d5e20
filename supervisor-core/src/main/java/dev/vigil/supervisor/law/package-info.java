/** Deliberately naive law models of the supervisor laws (S1–S9, D1–D2, and the engine's C9, Q1, Q2, Q5 rules), used as test oracles, and their invariants. */
package dev.vigil.supervisor.law;
