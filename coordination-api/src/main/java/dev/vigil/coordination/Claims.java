package dev.vigil.coordination;

import java.util.List;

/**
 * The decision of {@code claimNext}: the claims granted, in claim order (highest priority first,
 * then oldest, then lowest id); none when the lane is parked or nothing in it is claimable. Each
 * grant is exactly what {@code claim} would have granted for its ticket (C1, C2).
 *
 * @param granted the grants, at most the {@code max} asked for
 */
public record Claims(List<Claim.Granted> granted) {
  /** No ticket was claimed. */
  public static final Claims NONE = new Claims(List.of());

  public Claims {
    granted = List.copyOf(granted);
  }

  public boolean isEmpty() {
    return granted.isEmpty();
  }

  public int size() {
    return granted.size();
  }
}
