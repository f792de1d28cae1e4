extension SecAccessControl: Hashable {
  /// Two access-control objects are equal only when they are the same object (a CF object's identity), so
  /// they can be kept in `[String: AnyHashable]` as Valet keeps them.
  public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool { lhs === rhs }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
