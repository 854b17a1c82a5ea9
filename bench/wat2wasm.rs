//! Compiles a WebAssembly text file into a module, for `bench/run`'s tenant
//! program (`examples/programs/accept.wat`): `wat2wasm IN.wat OUT.wasm`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(input), Some(output)) = (args.next(), args.next()) else {
        return Err("usage: wat2wasm IN.wat OUT.wasm".into());
    };
    std::fs::write(output, wat::parse_file(input)?)?;
    Ok(())
}
