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
}
