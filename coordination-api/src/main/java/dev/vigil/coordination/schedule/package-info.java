/**
 * Recurring schedules (Q15): cron expressions through cron-utils, the pure fire rule that decides which
 * fire times are due and what to do with them, and the {@link dev.vigil.coordination.schedule.Schedules}
 * port by which a store keeps schedules and submits exactly one ticket per fire.
 */
package dev.vigil.coordination.schedule;
