import type { SeededRandom } from '../../../eval/random.ts';

/** What the simulated shop sells, and what a basket holds: mostly one or two things, sometimes two sizes. */
interface Product {
  sku: string;
  title: string;
  category: string;
  brand: string;
  price: number;
  sizes?: readonly string[];
  /** Apparel and electronics also carry a UPC. */
  upc?: string;
}

export interface BasketLine {
  sku: string;
  upc?: string;
  title: string;
  category: string;
  brand: string;
  size?: string;
  quantity: number;
  price: number;
}

const CLOTHING_SIZES = ['XS', 'S', 'M', 'L', 'XL'];
const SHOE_SIZES = ['6', '7', '8', '9', '10', '11', '12'];

const PRODUCTS: readonly Product[] = [
  {
    sku: 'TEE-CRW',
    title: 'Crew neck tee',
    category: 'Apparel',
    brand: 'Harbor',
    price: 24.99,
    sizes: CLOTHING_SIZES,
  },
  {
    sku: 'TEE-VNK',
    title: 'V-neck tee',
    category: 'Apparel',
    brand: 'Harbor',
    price: 24.99,
    sizes: CLOTHING_SIZES,
  },
  {
    sku: 'JNS-SLM',
    title: 'Slim jeans',
    category: 'Apparel',
    brand: 'Pine & Co',
    price: 79.0,
    sizes: ['28', '30', '32', '34', '36'],
  },
  {
    sku: 'DRS-WRP',
    title: 'Wrap dress',
    category: 'Apparel',
    brand: 'Pine & Co',
    price: 89.5,
    sizes: CLOTHING_SIZES,
    upc: '840112300017',
  },
  {
    sku: 'JKT-RAIN',
    title: 'Rain jacket',
    category: 'Apparel',
    brand: 'Northwind',
    price: 129.0,
    sizes: CLOTHING_SIZES,
    upc: '840112300024',
  },
  {
    sku: 'SWT-MER',
    title: 'Merino sweater',
    category: 'Apparel',
    brand: 'Northwind',
    price: 98.0,
    sizes: CLOTHING_SIZES,
  },
  { sku: 'SCK-3PK', title: 'Socks, 3 pack', category: 'Apparel', brand: 'Harbor', price: 14.0 },
  {
    sku: 'SNK-RUN',
    title: 'Running shoes',
    category: 'Footwear',
    brand: 'Stride',
    price: 119.95,
    sizes: SHOE_SIZES,
    upc: '840112300031',
  },
  {
    sku: 'BOT-CHL',
    title: 'Chelsea boots',
    category: 'Footwear',
    brand: 'Stride',
    price: 159.0,
    sizes: SHOE_SIZES,
  },
  { sku: 'SND-SLD', title: 'Slides', category: 'Footwear', brand: 'Stride', price: 35.0, sizes: SHOE_SIZES },
  {
    sku: 'HP-WLS',
    title: 'Wireless headphones',
    category: 'Electronics',
    brand: 'Sonora',
    price: 199.0,
    upc: '840112300048',
  },
  {
    sku: 'EB-PRO',
    title: 'Earbuds',
    category: 'Electronics',
    brand: 'Sonora',
    price: 129.0,
    upc: '840112300055',
  },
  {
    sku: 'SPK-MINI',
    title: 'Bluetooth speaker',
    category: 'Electronics',
    brand: 'Sonora',
    price: 59.99,
    upc: '840112300062',
  },
  { sku: 'CHG-65W', title: 'USB-C charger', category: 'Electronics', brand: 'Voltic', price: 39.99 },
  {
    sku: 'WAT-FIT',
    title: 'Fitness watch',
    category: 'Electronics',
    brand: 'Voltic',
    price: 249.0,
    upc: '840112300079',
  },
  { sku: 'MUG-STN', title: 'Stoneware mug', category: 'Home', brand: 'Kiln', price: 18.0 },
  { sku: 'THR-WOL', title: 'Wool throw', category: 'Home', brand: 'Kiln', price: 69.0 },
  { sku: 'LMP-DSK', title: 'Desk lamp', category: 'Home', brand: 'Lumen', price: 45.0 },
  { sku: 'CND-SET', title: 'Candle set', category: 'Home', brand: 'Kiln', price: 32.0 },
  { sku: 'SRM-VTC', title: 'Vitamin C serum', category: 'Beauty', brand: 'Dewy', price: 28.0 },
  { sku: 'CRM-NGT', title: 'Night cream', category: 'Beauty', brand: 'Dewy', price: 42.0 },
  { sku: 'PRF-EDP', title: 'Eau de parfum', category: 'Beauty', brand: 'Aster', price: 95.0 },
  {
    sku: 'BLK-SET',
    title: 'Building blocks set',
    category: 'Toys',
    brand: 'Brickly',
    price: 49.99,
    upc: '840112300086',
  },
  { sku: 'PZL-1000', title: 'Puzzle, 1000 pieces', category: 'Toys', brand: 'Brickly', price: 22.0 },
  { sku: 'BAG-TOT', title: 'Canvas tote', category: 'Accessories', brand: 'Harbor', price: 29.0 },
  {
    sku: 'BLT-LTH',
    title: 'Leather belt',
    category: 'Accessories',
    brand: 'Pine & Co',
    price: 45.0,
    sizes: ['S', 'M', 'L'],
  },
];

/** A basket: one to five lines; a shopper unsure of a size sometimes orders two sizes of one thing. */
export function basket(rng: SeededRandom, options: { bracket: boolean }): BasketLine[] {
  if (options.bracket) {
    const product = rng.pick(PRODUCTS.filter((p) => p.sizes));
    const index = rng.int(0, product.sizes!.length - 2);
    return [line(product, product.sizes![index], 1), line(product, product.sizes![index + 1], 1)];
  }
  const count = pickCount(rng);
  const lines: BasketLine[] = [];
  const used = new Set<string>();
  while (lines.length < count) {
    const product = rng.pick(PRODUCTS);
    if (used.has(product.sku)) continue;
    used.add(product.sku);
    const size = product.sizes ? rng.pick(product.sizes) : undefined;
    const quantity = product.category === 'Apparel' && rng.chance(0.1) ? 2 : 1;
    lines.push(line(product, size, quantity));
  }
  return lines;
}

function pickCount(rng: SeededRandom): number {
  const draw = rng.next();
  if (draw < 0.55) return 1;
  if (draw < 0.85) return 2;
  if (draw < 0.97) return 3;
  return rng.int(4, 5);
}

function line(product: Product, size: string | undefined, quantity: number): BasketLine {
  return {
    sku: size ? `${product.sku}-${size}` : product.sku,
    ...(product.upc && !size ? { upc: product.upc } : {}),
    title: product.title,
    category: product.category,
    brand: product.brand,
    ...(size ? { size } : {}),
    quantity,
    price: product.price,
  };
}
