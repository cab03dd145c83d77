/// The one rule for customer ids: they are compared as exact bytes.
///
/// A customer id is the app's own user id, taken as it arrives (a path, a body, a token's
/// claim) and never normalized. Two ids name the same customer only when their UTF-8 bytes are
/// identical: `zoé` spelled with U+00E9 and `zoé` spelled `e` + U+0301 are two customers, and
/// so are `Å` (U+00C5) and `Å` (U+212B ANGSTROM SIGN). SQLite and PostgreSQL compare text that
/// way, so the store, the token check and every comparison in between agree.
///
/// Swift's `String ==` (and a `String`'s hash) follows canonical equivalence, for which those
/// pairs are equal: it never decides whether two customer ids match. Use ``same(_:_:)``.
public enum CustomerId {
    /// Whether `a` and `b` are the same customer id: the same bytes.
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    /// Whether `a` is a customer id and the same as `b`.
    public static func same(_ a: String?, _ b: String) -> Bool {
        a.map { same($0, b) } ?? false
    }
}
