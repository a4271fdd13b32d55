import { Column } from 'typeorm';
import { NUMERIC_AS_NUMBER } from '@app/database';

/** `price_per_hr` of a catalog type: six decimals, read as a number, 0 until the fleet file is loaded again. */
export function PricePerHrColumn(): PropertyDecorator {
  return Column({
    name: 'price_per_hr',
    type: 'numeric',
    precision: 12,
    scale: 6,
    default: 0,
    transformer: NUMERIC_AS_NUMBER,
  });
}
