import Foundation
import StorekeeperApps
import StorekeeperServer
import Testing

@Suite("Dashboard: password hashes")
struct PasswordHashTests {
    @Test("a hash verifies its password only; each has its own salt; unreadable hashes never verify")
    func hashAndVerify() throws {
        let hash = try PasswordHash.make("correct horse battery")
        #expect(hash.hasPrefix("scrypt$15$8$1$"))
        #expect(PasswordHash.verify("correct horse battery", against: hash))
        #expect(!PasswordHash.verify("correct horse batterY", against: hash))
        #expect(!PasswordHash.verify("", against: hash))
        #expect(try PasswordHash.make("correct horse battery") != hash)  // a fresh salt
        for garbled in [
            "", "scrypt", hash.replacingOccurrences(of: "scrypt$15", with: "scrypt$40"), hash.replacingOccurrences(of: "scrypt$", with: "bcrypt$"),
            String(hash.dropLast(4)), hash + "$extra",
        ] {
            #expect(!PasswordHash.verify("correct horse battery", against: garbled), "\(garbled)")
        }
    }

    @Test("short, huge or one-character passwords are refused with a reason")
    func refusals() {
        for bad in ["short", String(repeating: "a", count: 20), String(repeating: "ab", count: 600)] {
            #expect(throws: PasswordHash.Refusal.self) { try PasswordHash.check(bad) }
        }
        #expect(throws: Never.self) { try PasswordHash.check("a long enough passphrase") }
    }
}
