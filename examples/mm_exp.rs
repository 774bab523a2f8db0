use shaped::{DynRank, Tensor};
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args[0].parse().unwrap();
    let secs: f64 = args[1].parse().unwrap();
    let rhs_t: usize = args[2].parse().unwrap();
    let lhs_t: usize = args[3].parse().unwrap();
    gemm::set_rhs_packing_threshold(rhs_t);
    gemm::set_lhs_packing_threshold_single_thread(lhs_t);
    let a = Tensor::<f32, DynRank>::try_rand(&[n, n], 1).unwrap();
    let b = Tensor::<f32, DynRank>::try_rand(&[n, n], 2).unwrap();
    let flops = 2.0 * (n * n * n) as f64;
    let _ = a.matmul(&b);
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 3 || start.elapsed().as_secs_f64() < secs {
        let t = Instant::now();
        let c = a.matmul(&b);
        times.push(t.elapsed().as_secs_f64());
        std::hint::black_box(c);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "n {n} rhs {rhs_t} lhs {lhs_t} best {:.1} med {:.1}",
        flops / times[0] / 1e9,
        flops / times[times.len() / 2] / 1e9
    );
}
