//! Scratch timing of engine pieces (not part of the crate's API).
use std::time::Instant;
use rquickjs::{context::intrinsic, Context, Function, Runtime};

type Intrinsics = (intrinsic::Date, intrinsic::Eval, intrinsic::RegExpCompiler, intrinsic::RegExp, intrinsic::Json, intrinsic::Proxy, intrinsic::MapSet, intrinsic::TypedArrays, intrinsic::Promise, intrinsic::WeakRef);

fn time<R>(label: &str, n: u32, mut f: impl FnMut() -> R) {
    let t = Instant::now();
    for _ in 0..n { std::hint::black_box(f()); }
    println!("{label}: {:?}", t.elapsed() / n);
}

fn main() {
    let glue = include_str!("../../runtime-js/glue.js");
    time("runtime", 200, || Runtime::new().unwrap());
    time("runtime+context", 200, || { let rt = Runtime::new().unwrap(); Context::custom::<Intrinsics>(&rt).unwrap() });
    time("runtime+full context", 200, || { let rt = Runtime::new().unwrap(); Context::full(&rt).unwrap() });
    time("runtime+context+glue eval", 200, || {
        let rt = Runtime::new().unwrap();
        let ctx = Context::custom::<Intrinsics>(&rt).unwrap();
        ctx.with(|ctx| { let _f: Function = ctx.eval(glue).unwrap(); });
    });
    let rt = Runtime::new().unwrap();
    let ctx = Context::custom::<Intrinsics>(&rt).unwrap();
    ctx.with(|ctx| {
        let f: Function = ctx.eval("(function(){ let s = 0; for (let i = 0; i < 1000; i++) s += JSON.stringify({a:i,b:1}).length; return s })").unwrap();
        time("1000 JSON.stringify small", 50, || f.call::<_, i32>(()).unwrap());
        let noop = Function::new(ctx.clone(), |a: String, b: String| a.len() + b.len()).unwrap();
        ctx.globals().set("noop", noop).unwrap();
        let f: Function = ctx.eval("(function(){ let s = 0; for (let i = 0; i < 1000; i++) s += noop('add', '{\"a\":1}'); return s })").unwrap();
        time("1000 rust fn calls (2 strings)", 50, || f.call::<_, i32>(()).unwrap());
        let f: Function = ctx.eval("(async function(){ let s = 0; for (let i = 0; i < 1000; i++) s = await Promise.resolve(i); return s })").unwrap();
        time("1000 local awaits", 50, || { let p: rquickjs::Promise = f.call(()).unwrap(); while ctx.execute_pending_job() {} p });
        let f: Function = ctx.eval("(function(){ let s = 0; for (let i = 0; i < 1e7; i++) s += i; return s })").unwrap();
        time("1e7 loop", 3, || f.call::<_, f64>(()).unwrap());
        time("1 json_parse small", 10000, || ctx.json_parse("{\"a\":1}").unwrap());
        time("1 ctx.promise", 10000, || ctx.promise().unwrap());
    });
}
