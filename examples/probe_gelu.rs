use std::time::Instant;
fn main() {
    let n = 1 << 24;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 / 250.0 - 2.0).collect();
    let mut o = vec![0.0f32; n];
    for name in ["gelu", "erf", "exp", "copy"] {
        let t = Instant::now();
        for _ in 0..5 {
            match name {
                "gelu" => {
                    for (o, &x) in o.iter_mut().zip(&x) {
                        *o = shaped::ops::scalar::gelu(x);
                    }
                }
                "erf" => {
                    for (o, &x) in o.iter_mut().zip(&x) {
                        *o = shaped::ops::scalar::erf_f32(x);
                    }
                }
                "exp" => {
                    for (o, &x) in o.iter_mut().zip(&x) {
                        *o = x.exp();
                    }
                }
                _ => {
                    for (o, &x) in o.iter_mut().zip(&x) {
                        *o = x;
                    }
                }
            }
        }
        println!(
            "{name}: {:.2} ns/elem",
            t.elapsed().as_nanos() as f64 / 5.0 / n as f64
        );
    }
    println!("{}", o[77]);
}
