package dev.vigil.coordination.h2;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Submission;

/** Names a decision's variant (record and reason) for coverage counts. */
final class Decisions {
  private Decisions() {}

  static String variant(Object d) {
    if (d instanceof Claim.Granted) {
      return "Claim.Granted";
    } else if (d instanceof Claim.Denied x) {
      return "Claim." + x.reason();
    } else if (d instanceof Claims cs) {
      return cs.isEmpty() ? "ClaimNext.none" : "ClaimNext.granted";
    } else if (d instanceof Start.Started) {
      return "Start.Started";
    } else if (d instanceof Start.Denied x) {
      return "Start." + x.reason();
    } else if (d instanceof AbortClaim.Aborted a) {
      return "AbortClaim.Aborted." + a.ticket().state();
    } else if (d instanceof AbortClaim.Denied x) {
      return "AbortClaim." + x.reason();
    } else if (d instanceof AdoptClaim.Adopted) {
      return "AdoptClaim.Adopted";
    } else if (d instanceof AdoptClaim.Denied x) {
      return "AdoptClaim." + x.reason();
    } else if (d instanceof Renewal.Renewed) {
      return "Renewal.Renewed";
    } else if (d instanceof Renewal.Denied x) {
      return "Renewal." + x.reason();
    } else if (d instanceof Integer n) {
      return n == 0 ? "RenewAll.none" : "RenewAll.some";
    } else if (d instanceof Readopt.Readopted) {
      return "Readopt.Readopted";
    } else if (d instanceof Readopt.Denied x) {
      return "Readopt." + x.reason();
    } else if (d instanceof Exit.Taken) {
      return "Exit.Taken";
    } else if (d instanceof Exit.Denied x) {
      return "Exit." + x.reason();
    } else if (d instanceof Settlement.Settled s) {
      if (s.run().verdict() == dev.vigil.coordination.Verdict.KILLED) {
        return "Settlement.Settled.KILLED." + s.ticket().state();
      }
      return s.superseded().isEmpty() ? "Settlement.Settled." + s.ticket().state() : "Settlement.Settled.superseding";
    } else if (d instanceof Settlement.Denied x) {
      return "Settlement." + x.reason();
    } else if (d instanceof Control.Done) {
      return "Control.Done";
    } else if (d instanceof Control.Denied x) {
      return "Control." + x.reason();
    } else if (d instanceof Submission.Accepted) {
      return "Submission.Accepted";
    } else if (d instanceof Submission.Duplicate) {
      return "Submission.Duplicate";
    } else if (d instanceof java.util.List<?> batch) {
      if (batch.isEmpty()) {
        return "SubmitAll.empty";
      } else if (batch.get(0) instanceof Readopt) {
        long readopted = batch.stream().filter(Readopt.Readopted.class::isInstance).count();
        return readopted == batch.size() ? "ReadoptAll.allReadopted" : readopted == 0 ? "ReadoptAll.allDenied"
            : "ReadoptAll.mixed";
      }
      return batch.stream().anyMatch(Submission.Duplicate.class::isInstance) ? "SubmitAll.withDuplicate"
          : "SubmitAll.allAccepted";
    } else if (d instanceof Boolean b) {
      return "Lane." + b;
    } else if (d instanceof dev.vigil.coordination.Owner) {
      return "Owner.registered";
    } else if (d instanceof dev.vigil.coordination.StopRequest.Recorded r) {
      return "StopRequest.Recorded." + (r.changed() ? r.run().stopIntent() : "unchanged");
    } else if (d instanceof dev.vigil.coordination.StopRequest.Denied x) {
      return "StopRequest." + x.reason();
    } else if (d instanceof dev.vigil.coordination.Retry.Retried r) {
      return "Retry.Retried";
    } else if (d instanceof dev.vigil.coordination.Retry.Denied x) {
      return "Retry." + x.reason();
    } else if (d instanceof dev.vigil.coordination.Event) {
      return "Event.serviceGivenUp";
    }
    throw new AssertionError(d);
  }
}
