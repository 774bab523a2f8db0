//! Printing, as PyTorch prints: `tensor([[1., 2.],\n        [3., 4.]])`.
