import Foundation
import RestingCore
import RestingServerHarness
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("matches the FIPS 180-4 test vectors")
    func vectors() {
        #expect(SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("hashing in chunks of any size gives the digest of the whole")
    func incremental() throws {
        let data = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let whole = SHA256.hex(data)
        for chunkSize in [1, 63, 64, 65, 1000] {
            var hasher = SHA256()
            for start in stride(from: 0, to: data.count, by: chunkSize) {
                hasher.update(data[start..<min(start + chunkSize, data.count)])
            }
            #expect(hasher.finalizeHex() == whole)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rk-sha-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try SHA256.hex(ofFile: file) == whole)
    }

    @Test(
        "HMAC-SHA256 gives RFC 4231's test vectors, a key longer than a block included",
        arguments: [
            (
                [UInt8](repeating: 0x0b, count: 20), Data("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Data("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Data("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ])
    func authenticationCodes(key: [UInt8], message: Data, expected: String) {
        #expect(SHA256.authenticationCodeHex(of: message, key: key) == expected)
    }
}
